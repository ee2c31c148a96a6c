/* The typeless team collectives (shmem_broadcastmem, _collectmem, _fcollectmem, _alltoallmem,
 * _alltoallsmem): byte counts that are no multiple of a word, on SHMEM_TEAM_WORLD and on a team
 * split with a negative stride (team PE k is world PE n-1-k, so a library that used world ranks
 * in place of team ranks puts every block in the wrong place). Every byte of dest is compared,
 * the gaps alltoallsmem's strides leave included (they must keep what was there). */
#include <stdint.h>
#include <string.h>
#include "check.h"

enum { kBytes = 13, kGapFill = 0xEE };

/* the byte i of what team PE `from` sends (to team PE `to`, where the collective has one) */
static unsigned char pattern(int from, int to, size_t i) { return (unsigned char)(from * 37 + to * 101 + i * 11 + 5); }

static void check_team(shmem_team_t team, const char* name, unsigned char* dest, unsigned char* source) {
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);

  /* broadcastmem from every root: every PE's dest (the root's too) gets the root's bytes */
  for (int root = 0; root < n; ++root) {
    for (size_t i = 0; i < kBytes; ++i) source[i] = pattern(me, 0, i);
    memset(dest, 0, kBytes);
    shmem_team_sync(team); /* every dest is cleared before the root sends */
    CHECK_EQ(shmem_broadcastmem(team, dest, source, kBytes, root), 0);
    for (size_t i = 0; i < kBytes; ++i)
      CHECK(dest[i] == pattern(root, 0, i), "%s broadcastmem root %d: byte %zu is %d", name, root, i, dest[i]);
    shmem_team_sync(team);
  }

  /* fcollectmem: kBytes from each team PE, in team order */
  for (size_t i = 0; i < kBytes; ++i) source[i] = pattern(me, 0, i);
  CHECK_EQ(shmem_fcollectmem(team, dest, source, kBytes), 0);
  for (int k = 0; k < n; ++k)
    for (size_t i = 0; i < kBytes; ++i)
      CHECK(dest[k * kBytes + i] == pattern(k, 0, i), "%s fcollectmem: byte %zu of team PE %d", name, i, k);
  shmem_team_sync(team);

  /* collectmem: team PE k gives (k % 3 + 1) * 5 bytes, concatenated in team order */
  const size_t mine = (size_t)(me % 3 + 1) * 5;
  for (size_t i = 0; i < mine; ++i) source[i] = pattern(me, 1, i);
  CHECK_EQ(shmem_collectmem(team, dest, source, mine), 0);
  size_t at = 0;
  for (int k = 0; k < n; ++k)
    for (size_t i = 0; i < (size_t)(k % 3 + 1) * 5; ++i, ++at)
      CHECK(dest[at] == pattern(k, 1, i), "%s collectmem: byte %zu of team PE %d (dest offset %zu)", name, i, k, at);
  shmem_team_sync(team);

  /* alltoallmem: block j of the source goes to team PE j, block k of dest came from team PE k */
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < kBytes; ++i) source[j * kBytes + i] = pattern(me, j, i);
  CHECK_EQ(shmem_alltoallmem(team, dest, source, kBytes), 0);
  for (int k = 0; k < n; ++k)
    for (size_t i = 0; i < kBytes; ++i)
      CHECK(dest[k * kBytes + i] == pattern(k, me, i), "%s alltoallmem: byte %zu from team PE %d", name, i, k);
  shmem_team_sync(team);

  /* alltoallsmem: elements are bytes; source stride 3, dest stride 2 */
  enum { kSst = 3, kDst = 2, kElems = 5 };
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < kElems; ++i) source[(j * kElems + i) * kSst] = pattern(me, j, i);
  memset(dest, kGapFill, (size_t)n * kElems * kDst);
  shmem_team_sync(team); /* no peer writes into dest before it is filled */
  CHECK_EQ(shmem_alltoallsmem(team, dest, source, kDst, kSst, kElems), 0);
  for (int k = 0; k < n; ++k)
    for (size_t i = 0; i < kElems; ++i) {
      const size_t e = (k * kElems + i) * kDst;
      CHECK(dest[e] == pattern(k, me, i), "%s alltoallsmem: element %zu from team PE %d", name, i, k);
      CHECK(dest[e + 1] == kGapFill, "%s alltoallsmem: the gap after element %zu from team PE %d was written", name, i, k);
    }
  shmem_team_sync(team);
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  unsigned char* source = shmem_malloc((size_t)n * kBytes * 3);
  unsigned char* dest = shmem_malloc((size_t)n * kBytes * 3);
  CHECK(source != NULL && dest != NULL, "shmem_malloc failed");

  check_team(SHMEM_TEAM_WORLD, "world", dest, source);

  shmem_team_t reversed = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &reversed), 0);
  CHECK_EQ(shmem_team_my_pe(reversed), n - 1 - me);
  check_team(reversed, "reversed", dest, source);
  shmem_team_destroy(reversed);

  shmem_barrier_all();
  shmem_free(dest);
  shmem_free(source);
  if (me == 0) printf("typeless_collectives: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
