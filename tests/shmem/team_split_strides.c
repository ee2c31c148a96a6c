/* OpenSHMEM 1.6 shmem_team_split_strided with negative strides (members in descending parent
 * order) and one-member teams whose stride is not used; team numbering, translation, a team
 * reduction and team-relative RMA through a team context are checked on each. */
#include "check.h"

/* World PE of team PE k of the split (start, stride, size). */
static int member(int start, int stride, int size, int k) { return start + k * (size == 1 ? 0 : stride); }

/* Checks that `t` is the split (start, stride, size) and that this PE is its PE `rank`; `v` (2
 * longs) and `box` (1 long) are symmetric. */
static void check_team(shmem_team_t t, int rank, int start, int stride, int size, long* v, long* box) {
  const int me = shmem_my_pe();
  CHECK(t != SHMEM_TEAM_INVALID, "PE %d is team PE %d of (start %d, stride %d, size %d)", me, rank, start, stride, size);
  CHECK_EQ(shmem_team_my_pe(t), rank);
  CHECK_EQ(shmem_team_n_pes(t), size);
  for (int k = 0; k < size; ++k) CHECK_EQ(shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD), member(start, stride, size, k));
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, t), rank);

  /* Sum of the members' world PEs over the team. */
  v[0] = me;
  long expect = 0;
  for (int k = 0; k < size; ++k) expect += member(start, stride, size, k);
  CHECK_EQ(shmem_long_sum_reduce(t, v + 1, v, 1), 0);
  CHECK_EQ(v[1], expect);

  /* Team-relative put to the next team PE: it receives my world PE. */
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_team_create_ctx(t, 0, &ctx), 0);
  shmem_team_sync(t);
  shmem_ctx_long_p(ctx, box, me, (rank + 1) % size);
  shmem_ctx_quiet(ctx);
  shmem_team_sync(t);
  CHECK_EQ(*box, member(start, stride, size, (rank + size - 1) % size));
  shmem_team_sync(t);
  shmem_ctx_destroy(ctx);
  shmem_team_destroy(t);
}

/* Splits the world with (start, stride, size) and checks the team against that formula. */
static void check_split(int start, int stride, int size) {
  const int me = shmem_my_pe();
  shmem_team_t t = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t), 0);
  int rank = -1; /* my place in the team, from the formula */
  for (int k = 0; k < size; ++k)
    if (member(start, stride, size, k) == me) rank = k;
  /* The symmetric heap is the world's: every PE allocates, the members use it. */
  long* v = shmem_malloc(2 * sizeof(long));
  long* box = shmem_calloc(1, sizeof(long));
  if (rank < 0) {
    CHECK(t == SHMEM_TEAM_INVALID, "PE %d is not in (start %d, stride %d, size %d) but got a team", me, start, stride, size);
  } else {
    check_team(t, rank, start, stride, size, v, box);
  }
  shmem_free(box);
  shmem_free(v);
}

int main(void) {
  shmem_init();
  const int n = shmem_n_pes();
  check_split(n - 1, -1, n);           /* the world reversed */
  check_split(n - 1, -2, (n + 1) / 2); /* every second PE from the top */
  check_split(0, 1, n);                /* the world, ascending */
  check_split(n - 1, 0, 1);            /* one member: stride 0 is not used */
  check_split(0, -5, 1);               /* one member: a stride that would leave the parent */
  shmem_team_t t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "a negative stride below PE 0 must fail");
  t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "stride 0 with two members must fail");
  if (shmem_my_pe() == 0) printf("team_split_strides: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
