/* MPI_Comm_spawn / MPI_Comm_spawn_multiple / MPI_Comm_get_parent (MPI 4.1 chapter 11), through
 * gasketrun: the program spawns copies of itself (argv[1] tells a copy its role).
 *   parents: spawn 1..4 children; data both ways over the intercommunicator, a rooted broadcast,
 *            MPI_Intercomm_merge (parents low) with an allreduce and a sendrecv ring on the result,
 *            MPI_Comm_disconnect;
 *            spawn_multiple of two programs: each child reports its MPI_APPNUM and argv;
 *            nested: a child spawns a grandchild and relays its answer;
 *            errors: a program that does not exist and a foreign host give MPI_ERR_SPAWN in the
 *            return code and in every errcode, and leave nothing started; an info of another
 *            kind at the root gives MPI_ERR_INFO (ignored at a non-root);
 *   --child-dies: a child exits with status 3 while its parents wait for it (the job must end). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mpi/check.h"

static char* self_path;

/* Both sides: the parents are the low group of the merge. */
#define TRACE(step) do { if (getenv("DYNPROC_TRACE")) fprintf(stderr, "%s %d: %s\n", is_parent ? "parent" : "child", rank, step); } while (0)
static void exchange(MPI_Comm inter, int is_parent) {
  int rank, size, remote;
  MPI_OK(MPI_Comm_rank(inter, &rank));
  MPI_OK(MPI_Comm_size(inter, &size));
  MPI_OK(MPI_Comm_remote_size(inter, &remote));
  /* Every process sends its rank * 100 + (parent ? 1 : 2) to rank (rank % remote) of the other
   * side and receives from every remote rank r with r % size == rank. */
  int out = rank * 100 + (is_parent ? 1 : 2);
  MPI_Request req;
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, rank % remote, 7, inter, &req));
  for (int r = rank; r < remote; r += size) {
    int in = -1;
    MPI_Status st;
    MPI_OK(MPI_Recv(&in, 1, MPI_INT, r, 7, inter, &st));
    CHECK_EQ(in, r * 100 + (is_parent ? 2 : 1));
    CHECK_EQ(st.MPI_SOURCE, r);
  }
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  TRACE("p2p");
  /* A large message (beyond every eager limit within a job) from parent 0 to child 0. */
  enum { kBig = 1 << 20 };
  int* big = malloc(kBig * sizeof(int));
  if (rank == 0) {
    if (is_parent) {
      for (int i = 0; i < kBig; ++i) big[i] = i ^ 0x5a5a;
      MPI_OK(MPI_Send(big, kBig, MPI_INT, 0, 8, inter));
    } else {
      MPI_OK(MPI_Recv(big, kBig, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE));
      for (int i = 0; i < kBig; ++i) CHECK_EQ(big[i], i ^ 0x5a5a);
    }
  }
  free(big);
  TRACE("big");
  /* Rooted broadcast from parent 0 to the children. */
  int value = is_parent ? 4242 : 0;
  if (is_parent) {
    MPI_OK(MPI_Bcast(&value, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
  } else {
    MPI_OK(MPI_Bcast(&value, 1, MPI_INT, 0, inter));
    CHECK_EQ(value, 4242);
  }
  TRACE("bcast");
  /* Merge: parents first. */
  MPI_Comm merged;
  MPI_OK(MPI_Intercomm_merge(inter, is_parent ? 0 : 1, &merged));
  int mrank, msize;
  MPI_OK(MPI_Comm_rank(merged, &mrank));
  MPI_OK(MPI_Comm_size(merged, &msize));
  CHECK_EQ(msize, size + remote);
  CHECK_EQ(mrank, is_parent ? rank : remote + rank);
  TRACE("merged");
  int sum = 0;
  MPI_OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK_EQ(sum, msize * (msize - 1) / 2);
  TRACE("allreduce");
  int left = -1, right = (mrank + 1) % msize;
  MPI_OK(MPI_Sendrecv(&mrank, 1, MPI_INT, right, 9, &left, 1, MPI_INT, (mrank + msize - 1) % msize, 9, merged,
                      MPI_STATUS_IGNORE));
  CHECK_EQ(left, (mrank + msize - 1) % msize);
  TRACE("ring");
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(merged, &dup));
  MPI_OK(MPI_Barrier(dup));
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&merged));
  TRACE("dup");
  MPI_OK(MPI_Comm_disconnect(&inter));
  CHECK(inter == MPI_COMM_NULL);
}

static void child(int argc, char** argv) {
  MPI_Comm parent;
  MPI_OK(MPI_Comm_get_parent(&parent));
  CHECK(parent != MPI_COMM_NULL);
  /* Naming Objects: the communicator MPI_Comm_get_parent returns has the default name
   * MPI_COMM_PARENT. */
  char name[MPI_MAX_OBJECT_NAME];
  int name_len = -1;
  MPI_OK(MPI_Comm_get_name(parent, name, &name_len));
  CHECK(strcmp(name, "MPI_COMM_PARENT") == 0);
  CHECK_EQ(name_len, (int)strlen("MPI_COMM_PARENT"));
  int flag = 0, *appnum = NULL;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
  CHECK(flag);
  if (strcmp(argv[1], "child") == 0) {
    exchange(parent, 0);
  } else if (strcmp(argv[1], "multi") == 0) {
    /* argv: multi <tag> <extra>: report (appnum, tag, extra, world size) to parent 0. */
    CHECK_EQ(argc, 4);
    int world;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &world));
    int report[4] = {*appnum, atoi(argv[2]), atoi(argv[3]), world};
    MPI_OK(MPI_Send(report, 4, MPI_INT, 0, 11, parent));
    MPI_OK(MPI_Comm_disconnect(&parent));
  } else if (strcmp(argv[1], "nested") == 0) {
    /* Spawn one grandchild, get a number from it, pass number + 1 to the parents' rank 0. */
    MPI_Comm grand;
    char* args[] = {"grandchild", NULL};
    int code = -1;
    MPI_OK(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &grand, &code));
    CHECK_EQ(code, MPI_SUCCESS);
    int rank, v = 0;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    if (rank == 0) {
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 12, grand, MPI_STATUS_IGNORE));
      CHECK_EQ(v, 777);
      v += 1;
      MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 13, parent));
    }
    MPI_OK(MPI_Comm_disconnect(&grand));
    MPI_OK(MPI_Comm_disconnect(&parent));
  } else if (strcmp(argv[1], "grandchild") == 0) {
    int v = 777;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 12, parent));
    MPI_OK(MPI_Comm_disconnect(&parent));
  } else if (strcmp(argv[1], "die") == 0) {
    exit(3);
  } else {
    CHECK(!"unknown role");
  }
  MPI_OK(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);
}

/* --refused: under a launcher that cannot spawn (Slurm's PMIx server), MPI_Comm_spawn fails on
 * every rank with MPI_ERR_SPAWN in the return code and every errcode (--refused-fatal: with the
 * default error handler the job ends with the reason, which the test checks). */
static void refused(int rank) {
  char* args[] = {"child", NULL};
  int codes[2] = {-1, -1};
  MPI_Comm inter = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rc = MPI_Comm_spawn(self_path, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
  int cls = -1, len = 0;
  MPI_OK(MPI_Error_class(rc, &cls));
  CHECK_EQ(cls, MPI_ERR_SPAWN);
  CHECK(inter == MPI_COMM_NULL);
  CHECK_EQ(codes[0], MPI_ERR_SPAWN);
  CHECK_EQ(codes[1], MPI_ERR_SPAWN);
  char text[MPI_MAX_ERROR_STRING];
  MPI_OK(MPI_Error_string(rc, text, &len));
  if (rank == 0) printf("spawn refused: %s\n", text);
}

int main(int argc, char** argv) {
  self_path = argv[0];
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm parent;
  MPI_OK(MPI_Comm_get_parent(&parent));
  if (argc > 1 && strcmp(argv[1], "--refused-fatal") == 0) { /* the job must end naming the reason */
    char* args[] = {"child", NULL};
    MPI_Comm inter;
    MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--refused") == 0) {
    refused(rank);
    MPI_OK(MPI_Finalize());
    return 0;
  }
  int child_dies = argc > 1 && strcmp(argv[1], "--child-dies") == 0;
  if (argc > 1 && !child_dies) {
    CHECK(parent != MPI_COMM_NULL);
    child(argc, argv);
    MPI_OK(MPI_Finalize());
    return 0;
  }
  CHECK(parent == MPI_COMM_NULL);

  if (child_dies) {
    /* The child exits with status 3 from inside MPI_Init's connection: the job ends, naming it. */
    char* args[] = {"die", NULL};
    MPI_Comm inter;
    MPI_OK(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE));
    int never = 0;  /* the child exits instead of sending this */
    MPI_OK(MPI_Recv(&never, 1, MPI_INT, 0, 99, inter, MPI_STATUS_IGNORE));
    CHECK(!"unreachable: the job ends when the child dies");
  }

  /* 1..4 children, data exchanged and merged. */
  for (int k = 1; k <= 4; ++k) {
    char* args[] = {"child", NULL};
    int codes[4] = {-1, -1, -1, -1};
    MPI_Comm inter;
    MPI_OK(MPI_Comm_spawn(self_path, args, k, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < k; ++i) CHECK_EQ(codes[i], MPI_SUCCESS);
    int remote;
    MPI_OK(MPI_Comm_remote_size(inter, &remote));
    CHECK_EQ(remote, k);
    if (getenv("DYNPROC_TRACE")) fprintf(stderr, "rank %d: spawned %d\n", rank, k);
    exchange(inter, 1);
    if (getenv("DYNPROC_TRACE")) fprintf(stderr, "rank %d: exchanged with %d\n", rank, k);
  }

  /* spawn_multiple: two programs (the same binary with other arguments), root = last rank. */
  {
    char* argv_a[] = {"multi", "10", "1", NULL};
    char* argv_b[] = {"multi", "20", "2", NULL};
    char* commands[] = {self_path, self_path};
    char** argvs[] = {argv_a, argv_b};
    int maxprocs[] = {1, 2};
    MPI_Info infos[2];
    MPI_OK(MPI_Info_create(&infos[0]));
    MPI_OK(MPI_Info_set(infos[0], "soft", "1:1"));
    infos[1] = MPI_INFO_NULL;
    int codes[3];
    MPI_Comm inter;
    MPI_OK(MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, size - 1, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < 3; ++i) CHECK_EQ(codes[i], MPI_SUCCESS);
    MPI_OK(MPI_Info_free(&infos[0]));
    if (rank == 0) {
      for (int r = 0; r < 3; ++r) {
        int report[4];
        MPI_OK(MPI_Recv(report, 4, MPI_INT, r, 11, inter, MPI_STATUS_IGNORE));
        CHECK_EQ(report[0], r == 0 ? 0 : 1);
        CHECK_EQ(report[1], r == 0 ? 10 : 20);
        CHECK_EQ(report[2], r == 0 ? 1 : 2);
        CHECK_EQ(report[3], 3);
      }
    }
    MPI_OK(MPI_Comm_disconnect(&inter));
  }

  /* nested spawn */
  {
    char* args[] = {"nested", NULL};
    MPI_Comm inter;
    MPI_OK(MPI_Comm_spawn(self_path, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE));
    if (rank == 0) {
      int v = 0;
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 13, inter, MPI_STATUS_IGNORE));
      CHECK_EQ(v, 778);
    }
    MPI_OK(MPI_Comm_disconnect(&inter));
  }

  /* errors: a missing program, a foreign host */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  {
    char* args[] = {"child", NULL};
    int codes[3] = {-1, -1, -1};
    MPI_Comm inter = MPI_COMM_WORLD;
    int rc = MPI_Comm_spawn("/nonexistent/gasket-no-such-program", args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            codes);
    int cls = -1;
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL);
    for (int i = 0; i < 3; ++i) CHECK_EQ(codes[i], MPI_ERR_SPAWN);
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "host", "gasket-no-such-host.invalid"));
    rc = MPI_Comm_spawn(self_path, args, 1, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_SPAWN);
    MPI_OK(MPI_Info_free(&info));
    /* info of another kind at the root: MPI_ERR_INFO on every rank and in every errcode; the
     * same handle at a non-root is ignored (the root's valid spawn of a missing program decides). */
    MPI_Info wrong_kind = (MPI_Info)MPI_COMM_WORLD;
    for (int i = 0; i < 3; ++i) codes[i] = -1;
    rc = MPI_Comm_spawn(self_path, args, 3, rank == 0 ? wrong_kind : MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_INFO);
    CHECK(inter == MPI_COMM_NULL);
    for (int i = 0; i < 3; ++i) CHECK_EQ(codes[i], MPI_ERR_INFO);
    rc = MPI_Comm_spawn("/nonexistent/gasket-no-such-program", args, 1, rank == 0 ? MPI_INFO_NULL : wrong_kind, 0,
                        MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK_EQ(cls, MPI_ERR_SPAWN);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("dynproc spawn: %d parents OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
