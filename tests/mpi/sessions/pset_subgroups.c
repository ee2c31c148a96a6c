/* MPI_Comm_create_from_group on subgroups of a session's process set (MPI 4.1 section 11.3.3):
 * only the members call it, or a process passes MPI_GROUP_EMPTY (a local call giving
 * MPI_COMM_NULL); the others go on (here: straight to other subgroups, or to
 * MPI_Session_finalize). Subgroups: every rank but one (which passes MPI_GROUP_EMPTY), every
 * rank but the last, the pairs {2k, 2k + 1} (disjoint groups with one string tag), the world in reverse order without rank 0, and each process
 * alone; every communicator is checked by its size, rank order and an allreduce. */
#include <string.h>

#include "tests/mpi/check.h"

/* Members of `ranks` (world ranks, in the new order) make and check a communicator. */
static void subgroup(MPI_Group world, const int* ranks, int n, const char* tag, int me) {
  int member = 0;
  for (int i = 0; i < n; i++) member |= ranks[i] == me;
  if (!member) return;
  MPI_Group g;
  MPI_Comm c = MPI_COMM_NULL;
  MPI_OK(MPI_Group_incl(world, n, ranks, &g));
  MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK(c != MPI_COMM_NULL);
  check_comm_members(c, ranks, n, me);
  MPI_OK(MPI_Comm_free(&c));
  MPI_OK(MPI_Group_free(&g));
}

int main(void) {
  MPI_Session session;
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  MPI_Group world;
  MPI_OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &world));
  int me, size;
  MPI_OK(MPI_Group_rank(world, &me));
  MPI_OK(MPI_Group_size(world, &size));
  int ranks[64], n;

  /* all but rank size - 2; that one passes MPI_GROUP_EMPTY: a local call giving MPI_COMM_NULL;
   * then every process makes the world's communicator */
  MPI_Group all_but;
  int excluded = size - 2;
  MPI_OK(MPI_Group_excl(world, 1, &excluded, &all_but));
  MPI_Comm c = MPI_COMM_SELF;
  MPI_OK(MPI_Comm_create_from_group(me == excluded ? MPI_GROUP_EMPTY : all_but, "org.gasket.tests.subgroups.excl",
                                    MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  if (me == excluded) {
    CHECK(c == MPI_COMM_NULL);
  } else {
    for (n = 0; n < size; n++) ranks[n - (n > excluded)] = n;
    check_comm_members(c, ranks, size - 1, me);
    MPI_OK(MPI_Comm_free(&c));
  }
  MPI_OK(MPI_Group_free(&all_but));
  for (n = 0; n < size; n++) ranks[n] = n;
  subgroup(world, ranks, size, "org.gasket.tests.subgroups.world", me);

  for (n = 0; n < size - 1; n++) ranks[n] = n;  /* all but the last */
  subgroup(world, ranks, n, "org.gasket.tests.subgroups.all_but_last", me);

  int pair[2] = {me & ~1, (me & ~1) + 1};  /* disjoint pairs, one tag */
  if (pair[1] < size) subgroup(world, pair, 2, "org.gasket.tests.subgroups.pairs", me);

  for (n = 0; n < size - 1; n++) ranks[n] = size - 1 - n;  /* reversed, without rank 0 */
  subgroup(world, ranks, n, "org.gasket.tests.subgroups.reversed", me);

  subgroup(world, &me, 1, "org.gasket.tests.subgroups.self", me);

  /* the first half again, the last half meanwhile finalizing */
  for (n = 0; n < size / 2; n++) ranks[n] = n;
  subgroup(world, ranks, n, "org.gasket.tests.subgroups.first_half", me);

  MPI_OK(MPI_Group_free(&world));
  MPI_OK(MPI_Session_finalize(&session));
  return 0;
}
