/* Sessions (MPI 4.1 section 11.3): a program that never calls MPI_Init makes communicators from
 * the process sets mpi://WORLD and mpi://SELF, does point-to-point and collectives on them, makes
 * an intercommunicator from two groups, and initialises and finalises sessions repeatedly; with
 * argument "with_init" the World model runs beside the sessions (MPI_Init before, MPI_Finalize
 * while a session is still alive). Argument "bad_session" uses MPI_SESSION_NULL (must end the job
 * with a message naming the call). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/mpi/check.h"

static int handler_calls;
static int handler_code;

static void count_errors(MPI_Session* session, int* code, ...) {
  (void)session;
  ++handler_calls;
  handler_code = *code;
}

static int info_value(MPI_Info info, const char* key, char* value, int len) {
  int flag = 0, buflen = len;
  MPI_OK(MPI_Info_get_string(info, key, &buflen, value, &flag));
  return flag;
}

/* Point-to-point around a ring, an allreduce and a broadcast on `comm`. */
static void exercise(MPI_Comm comm) {
  int rank, size;
  MPI_OK(MPI_Comm_rank(comm, &rank));
  MPI_OK(MPI_Comm_size(comm, &size));
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[64], in[64];
  for (int i = 0; i < 64; ++i) out[i] = rank * 1000 + i;
  MPI_OK(MPI_Sendrecv(out, 64, MPI_INT, right, 7, in, 64, MPI_INT, left, 7, comm, MPI_STATUS_IGNORE));
  for (int i = 0; i < 64; ++i) CHECK_EQ(in[i], left * 1000 + i);
  long sum = 0;
  long mine = rank + 1;
  MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
  CHECK_EQ(sum, (long)size * (size + 1) / 2);
  int root_value = rank == size - 1 ? 4242 : -1;
  MPI_OK(MPI_Bcast(&root_value, 1, MPI_INT, size - 1, comm));
  CHECK_EQ(root_value, 4242);
  MPI_OK(MPI_Barrier(comm));
}

static void psets(MPI_Session s, int world_size) {
  int n = 0;
  MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK_EQ(n, 2);
  char name[MPI_MAX_PSET_NAME_LEN];
  int len = 0;
  MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, NULL)); /* the length only */
  CHECK_EQ(len, (int)strlen("mpi://WORLD") + 1);
  MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, name));
  CHECK(strcmp(name, "mpi://WORLD") == 0);
  len = 6; /* truncated to 5 characters and the null */
  MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1, &len, name));
  CHECK(strcmp(name, "mpi:/") == 0);
  CHECK_EQ(len, (int)strlen("mpi://SELF") + 1);
  CHECK_EQ(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &len, name), MPI_ERR_ARG);

  MPI_Info info;
  char value[64];
  MPI_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
  CHECK(info_value(info, "mpi_size", value, sizeof value));
  CHECK_EQ(atoi(value), world_size);
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Session_get_pset_info(s, "mpi://SELF", &info));
  CHECK(info_value(info, "mpi_size", value, sizeof value));
  CHECK_EQ(atoi(value), 1);
  MPI_OK(MPI_Info_free(&info));
  CHECK_EQ(MPI_Session_get_pset_info(s, "mpi://NOWHERE", &info), MPI_ERR_ARG);
  MPI_Group g;
  CHECK_EQ(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
}

/* One session's life: process sets, communicators, an intercommunicator, error handlers. */
static void session_round(int round, int thread_level) {
  MPI_Info hints;
  MPI_OK(MPI_Info_create(&hints));
  MPI_OK(MPI_Info_set(hints, "thread_level", thread_level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                                                                  : "MPI_THREAD_SINGLE"));
  MPI_Session s = MPI_SESSION_NULL;
  MPI_OK(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s));
  MPI_OK(MPI_Info_free(&hints));
  CHECK(s != MPI_SESSION_NULL);
  CHECK_EQ(MPI_Session_fromint(MPI_Session_toint(s)), s);
#ifdef GASKET_MPI /* the standard ABI leaves c2f/f2c to the Fortran layer */
  CHECK_EQ(MPI_Session_f2c(MPI_Session_c2f(s)), s);
#endif

  MPI_Group world_group, self_group;
  MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world_group));
  MPI_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &self_group));
  int size, rank;
  MPI_OK(MPI_Group_size(world_group, &size));
  MPI_OK(MPI_Group_rank(world_group, &rank));
  psets(s, size);

  MPI_Comm world, self;
  MPI_OK(MPI_Comm_create_from_group(world_group, "org.gasket.tests.sessions.world", MPI_INFO_NULL,
                                    MPI_ERRORS_RETURN, &world));
  MPI_OK(MPI_Comm_create_from_group(self_group, "org.gasket.tests.sessions.self", MPI_INFO_NULL,
                                    MPI_ERRORS_RETURN, &self));
  int crank, csize;
  MPI_OK(MPI_Comm_rank(world, &crank));
  MPI_OK(MPI_Comm_size(world, &csize));
  CHECK_EQ(crank, rank);
  CHECK_EQ(csize, size);
  MPI_OK(MPI_Comm_size(self, &csize));
  CHECK_EQ(csize, 1);
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_get_errhandler(world, &eh));
  CHECK_EQ(eh, MPI_ERRORS_RETURN);
  MPI_OK(MPI_Errhandler_free(&eh));
  exercise(world);
  exercise(self);

  /* Two communicators from one group with different tags, made one after the other, stay apart. */
  MPI_Comm again;
  MPI_OK(MPI_Comm_create_from_group(world_group, "org.gasket.tests.sessions.again", MPI_INFO_NULL,
                                    MPI_ERRORS_RETURN, &again));
  int result;
  MPI_OK(MPI_Comm_compare(world, again, &result));
  CHECK_EQ(result, MPI_CONGRUENT);
  exercise(again);
  MPI_OK(MPI_Comm_free(&again));

  /* Even and odd ranks: an intercommunicator made from two groups. */
  int n_even = (size + 1) / 2, n_odd = size / 2;
  int evens[64], odds[64];
  for (int i = 0; i < n_even; ++i) evens[i] = 2 * i;
  for (int i = 0; i < n_odd; ++i) odds[i] = 2 * i + 1;
  MPI_Group even_group, odd_group;
  MPI_OK(MPI_Group_incl(world_group, n_even, evens, &even_group));
  MPI_OK(MPI_Group_incl(world_group, n_odd, odds, &odd_group));
  int am_even = rank % 2 == 0;
  MPI_Comm inter;
  MPI_OK(MPI_Intercomm_create_from_groups(am_even ? even_group : odd_group, 0, am_even ? odd_group : even_group, 0,
                                          "org.gasket.tests.sessions.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                          &inter));
  int is_inter = 0, remote_size = 0;
  MPI_OK(MPI_Comm_test_inter(inter, &is_inter));
  CHECK(is_inter);
  MPI_OK(MPI_Comm_remote_size(inter, &remote_size));
  CHECK_EQ(remote_size, am_even ? n_odd : n_even);
  /* Each process of the smaller side exchanges with its partner (same local rank) on the other. */
  int lrank;
  MPI_OK(MPI_Comm_rank(inter, &lrank));
  if (lrank < n_odd) {
    int got = -1, mine = rank * 3 + round;
    MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, lrank, 3, &got, 1, MPI_INT, lrank, 3, inter, MPI_STATUS_IGNORE));
    CHECK_EQ(got, (am_even ? rank + 1 : rank - 1) * 3 + round);
  }
  long total = 0, one = 1;
  MPI_OK(MPI_Allreduce(&one, &total, 1, MPI_LONG, MPI_SUM, inter)); /* sums the remote group */
  CHECK_EQ(total, am_even ? n_odd : n_even);
  MPI_OK(MPI_Comm_free(&inter));

  /* A group this process is not in: MPI_ERR_GROUP through the handler given. */
  MPI_Comm none;
  CHECK_EQ(MPI_Comm_create_from_group(am_even ? odd_group : even_group, "org.gasket.tests.sessions.none",
                                      MPI_INFO_NULL, MPI_ERRORS_RETURN, &none),
           MPI_ERR_GROUP);
  CHECK_EQ(MPI_Comm_create_from_group(world_group, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &none), MPI_ERR_ARG);

  /* Session error handlers: created, set, called, got back. */
  MPI_Errhandler counting;
  MPI_OK(MPI_Session_create_errhandler(count_errors, &counting));
  MPI_OK(MPI_Session_set_errhandler(s, counting));
  handler_calls = 0;
  MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(handler_code, MPI_ERR_OTHER);
  int n;
  CHECK_EQ(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &n, NULL), MPI_ERR_ARG); /* raised on it too */
  CHECK_EQ(handler_calls, 2);
  CHECK_EQ(handler_code, MPI_ERR_ARG);
  MPI_Errhandler got;
  MPI_OK(MPI_Session_get_errhandler(s, &got));
  CHECK_EQ(got, counting);
  MPI_OK(MPI_Errhandler_free(&got));
  MPI_OK(MPI_Errhandler_free(&counting));

  MPI_Info used;
  char value[64];
  MPI_OK(MPI_Session_get_info(s, &used));
  CHECK(info_value(used, "thread_level", value, sizeof value));
  CHECK(strncmp(value, "MPI_THREAD_", 11) == 0);
  MPI_OK(MPI_Info_free(&used));

  MPI_OK(MPI_Comm_free(&world));
  MPI_OK(MPI_Comm_free(&self));
  MPI_Group* groups[] = {&world_group, &self_group, &even_group, &odd_group};
  for (int i = 0; i < 4; ++i) MPI_OK(MPI_Group_free(groups[i]));
#ifdef GASKET_MPI /* f2c of a finalized session's Fortran handle: the null handle */
  MPI_Fint finalized = MPI_Session_c2f(s);
#endif
  MPI_OK(MPI_Session_finalize(&s));
  CHECK_EQ(s, MPI_SESSION_NULL);
#ifdef GASKET_MPI
  CHECK_EQ(MPI_Session_f2c(finalized), MPI_SESSION_NULL);
#endif
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "sessions_only";
  int flag = 1;
  MPI_OK(MPI_Initialized(&flag));
  CHECK_EQ(flag, 0);

  /* MPI_Info_create_env works before anything is initialised. */
  MPI_Info env;
  MPI_OK(MPI_Info_create_env(argc, argv, &env));
  char value[256];
  CHECK(info_value(env, "command", value, sizeof value));
  CHECK(strcmp(value, argv[0]) == 0);
  CHECK(info_value(env, "maxprocs", value, sizeof value));
  CHECK(atoi(value) >= 2);
  CHECK(!info_value(env, "thread_level", value, sizeof value)); /* no level provided yet */
  MPI_OK(MPI_Info_free(&env));

  if (strcmp(mode, "bad_session") == 0) {
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    int n;
    MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n); /* ends the job */
    return 0;
  }
  if (strcmp(mode, "with_init") == 0) {
    MPI_OK(MPI_Init(&argc, &argv));
    /* Once a level is provided, MPI_Info_create_env says it; without argv, the process's own. */
    MPI_OK(MPI_Info_create_env(0, NULL, &env));
    CHECK(info_value(env, "thread_level", value, sizeof value));
    CHECK(strcmp(value, "MPI_THREAD_SINGLE") == 0);
    CHECK(info_value(env, "command", value, sizeof value));
    CHECK(strstr(value, "sessions") != NULL);
    MPI_OK(MPI_Info_free(&env));
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group g;
    MPI_Comm c;
    int result;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_OK(MPI_Comm_create_from_group(g, "org.gasket.tests.sessions.with_init", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
    CHECK_EQ(result, MPI_CONGRUENT);
    exercise(c);
    exercise(MPI_COMM_WORLD);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Finalize()); /* the session keeps the runtime */
    MPI_OK(MPI_Finalized(&flag));
    CHECK_EQ(flag, 1);
    session_round(0, MPI_THREAD_SINGLE);
    MPI_OK(MPI_Session_finalize(&s));
    return 0;
  }
  /* Sessions only: repeatedly, at two thread levels, and two sessions alive at once. */
  for (int round = 0; round < 3; ++round) session_round(round, round == 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
  MPI_Session outer;
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &outer));
  session_round(3, MPI_THREAD_SINGLE);
  MPI_OK(MPI_Session_finalize(&outer));
  MPI_OK(MPI_Initialized(&flag));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Finalized(&flag));
  CHECK_EQ(flag, 0);
  return 0;
}
