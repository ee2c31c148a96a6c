/* Ports, names, join and disconnect (MPI 4.1 chapter 11) through gasketrun:
 *  - two jobs started independently of each other (each spawned by this job on its own): a
 *    server publishes its port under a name, a client looks it up and connects; both exchange
 *    data, merge, disconnect; the name is unpublished; errors: lookup of an unpublished name
 *    (MPI_ERR_NAME), a bad port name and a closed port (MPI_ERR_PORT), publishing a taken name
 *    and unpublishing an unknown one (MPI_ERR_SERVICE);
 *  - accept/connect between the two halves of this job (same-job members map to their PEs);
 *  - MPI_Comm_join over a TCP loopback connection between ranks 0 and 1, and over a descriptor
 *    that is not a socket (MPI_ERR_ARG);
 *  - a bad info (a handle of another kind) at the root of accept/connect fails every rank with
 *    MPI_ERR_INFO; at a non-root it is ignored. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/mpi/check.h"

static const char* kService = "gasket-dynproc-test-service";

static int error_class(int rc) {
  int cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  return cls;
}

/* Values both ways between matching ranks, then a merge with `low` first and an allreduce; a
 * merged communicator spanning two jobs carries a window. */
static void talk(MPI_Comm inter, int low, int across_jobs) {
  int rank, size, remote;
  MPI_OK(MPI_Comm_rank(inter, &rank));
  MPI_OK(MPI_Comm_size(inter, &size));
  MPI_OK(MPI_Comm_remote_size(inter, &remote));
  int out = 1000 * (low ? 1 : 2) + rank, in = -1;
  int peer = rank % remote;
  MPI_Request req;
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 3, inter, &req));
  for (int r = rank; r < remote; r += size) {
    MPI_OK(MPI_Recv(&in, 1, MPI_INT, r, 3, inter, MPI_STATUS_IGNORE));
    CHECK_EQ(in, 1000 * (low ? 2 : 1) + r);
  }
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_Comm merged;
  MPI_OK(MPI_Intercomm_merge(inter, low ? 0 : 1, &merged));
  int mrank, msize, sum = 0;
  MPI_OK(MPI_Comm_rank(merged, &mrank));
  MPI_OK(MPI_Comm_size(merged, &msize));
  CHECK_EQ(msize, size + remote);
  CHECK_EQ(mrank, low ? rank : remote + rank);
  MPI_OK(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK_EQ(sum, msize * (msize - 1) / 2);
  if (across_jobs) {
    /* A window across the jobs of separate launches: a put ring (windows_across_jobs.c tests the
     * rest); a shared window is refused on every rank. */
    int* base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, merged, &base, &win));
    *base = -1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&mrank, 1, MPI_INT, (mrank + 1) % msize, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ(*base, (mrank + msize - 1) % msize);
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN));
    CHECK_EQ(error_class(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, merged, &base, &win)), MPI_ERR_RMA_SHARED);
    CHECK(win == MPI_WIN_NULL);
    MPI_OK(MPI_Barrier(merged));
  }
  MPI_OK(MPI_Comm_free(&merged));
  MPI_OK(MPI_Comm_disconnect(&inter));
  CHECK(inter == MPI_COMM_NULL);
}

/* server/client: spawned by this job (parent set, the parent orders lookup after publish), or
 * started by separate gasketrun commands (no parent: the client looks the name up until the
 * server has published it). `remote` is the size the other job must have. */
static void server(MPI_Comm parent, int expect_remote) {
  int rank;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK(strncmp(port, "gasket-port:", 12) == 0);
    MPI_OK(MPI_Publish_name(kService, MPI_INFO_NULL, port));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    CHECK_EQ(error_class(MPI_Publish_name(kService, MPI_INFO_NULL, port)), MPI_ERR_SERVICE);
    int ready = 1;
    if (parent != MPI_COMM_NULL) MPI_OK(MPI_Send(&ready, 1, MPI_INT, 0, 1, parent));
  }
  MPI_Comm client;
  MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &client));
  int remote;
  MPI_OK(MPI_Comm_remote_size(client, &remote));
  CHECK_EQ(remote, expect_remote);
  talk(client, 1, 1);
  if (rank == 0) {
    MPI_OK(MPI_Unpublish_name(kService, MPI_INFO_NULL, port));
    char found[MPI_MAX_PORT_NAME];
    CHECK_EQ(error_class(MPI_Lookup_name(kService, MPI_INFO_NULL, found)), MPI_ERR_NAME);
    CHECK_EQ(error_class(MPI_Unpublish_name(kService, MPI_INFO_NULL, port)), MPI_ERR_SERVICE);
    MPI_OK(MPI_Close_port(port));
    CHECK_EQ(error_class(MPI_Close_port(port)), MPI_ERR_PORT);
  }
  if (parent != MPI_COMM_NULL) MPI_OK(MPI_Comm_disconnect(&parent));
}

static void client(MPI_Comm parent, int expect_remote) {
  int rank;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    if (parent != MPI_COMM_NULL) {
      int go = 0;
      MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE));
      CHECK_EQ(go, 1);
      MPI_OK(MPI_Lookup_name(kService, MPI_INFO_NULL, port));
    } else {
      int rc;
      while ((rc = MPI_Lookup_name(kService, MPI_INFO_NULL, port)) != MPI_SUCCESS) {
        CHECK_EQ(error_class(rc), MPI_ERR_NAME);
        usleep(20000);
      }
    }
    CHECK(strncmp(port, "gasket-port:", 12) == 0);
    char none[MPI_MAX_PORT_NAME];
    CHECK_EQ(error_class(MPI_Lookup_name("gasket-no-such-service", MPI_INFO_NULL, none)), MPI_ERR_NAME);
  }
  /* A port name that is none, on MPI_COMM_SELF with errors returned. */
  MPI_Comm bad = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_EQ(error_class(MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &bad)), MPI_ERR_PORT);
  CHECK(bad == MPI_COMM_NULL);
  MPI_Comm server;
  MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &server));
  int remote;
  MPI_OK(MPI_Comm_remote_size(server, &remote));
  CHECK_EQ(remote, expect_remote);
  talk(server, 0, 1);
  if (parent != MPI_COMM_NULL) MPI_OK(MPI_Comm_disconnect(&parent));
}

static void halves(int rank, int size) {
  MPI_Comm half;
  int color = rank % 2;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half));
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 4, MPI_COMM_WORLD));
  } else if (rank == 1) {
    MPI_OK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  MPI_Comm inter;
  if (color == 0) {
    MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter));
  } else {
    MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter));
  }
  int remote;
  MPI_OK(MPI_Comm_remote_size(inter, &remote));
  CHECK_EQ(remote, color == 0 ? size / 2 : (size + 1) / 2);
  talk(inter, color == 0, 0);
  if (rank == 0) MPI_OK(MPI_Close_port(port));
  MPI_OK(MPI_Comm_free(&half));
}

static void join(int rank) {
  int fd = -1;
  if (rank == 0) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    CHECK(bind(listener, (struct sockaddr*)&sa, sizeof sa) == 0 && listen(listener, 1) == 0);
    CHECK(getsockname(listener, (struct sockaddr*)&sa, &len) == 0);
    int port = ntohs(sa.sin_port);
    MPI_OK(MPI_Send(&port, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    fd = accept(listener, NULL, NULL);
    CHECK(fd >= 0);
    close(listener);
  } else {
    int port = 0;
    MPI_OK(MPI_Recv(&port, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((unsigned short)port);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(fd, (struct sockaddr*)&sa, sizeof sa) == 0);
  }
  MPI_Comm inter;
  MPI_OK(MPI_Comm_join(fd, &inter));
  close(fd);
  int remote, v = 0, mine = 50 + rank;
  MPI_OK(MPI_Comm_remote_size(inter, &remote));
  CHECK_EQ(remote, 1);
  MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 6, &v, 1, MPI_INT, 0, 6, inter, MPI_STATUS_IGNORE));
  CHECK_EQ(v, 50 + (1 - rank));
  MPI_OK(MPI_Comm_disconnect(&inter));
}

/* info is significant only at the root of accept/connect: a handle of another kind there fails
 * every rank with MPI_ERR_INFO (accept must not wait for a client first), and the same handle at
 * a non-root is ignored (connect to a bad port then fails with MPI_ERR_PORT everywhere). */
static void bad_info_at_root(int rank) {
  MPI_Info wrong_kind = (MPI_Info)MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
  MPI_Comm got = MPI_COMM_WORLD;
  CHECK_EQ(error_class(MPI_Comm_accept(port, rank == 0 ? wrong_kind : MPI_INFO_NULL, 0, MPI_COMM_WORLD, &got)),
           MPI_ERR_INFO);
  CHECK(got == MPI_COMM_NULL);
  got = MPI_COMM_WORLD;
  CHECK_EQ(error_class(MPI_Comm_connect(port, rank == 0 ? wrong_kind : MPI_INFO_NULL, 0, MPI_COMM_WORLD, &got)),
           MPI_ERR_INFO);
  CHECK(got == MPI_COMM_NULL);
  got = MPI_COMM_WORLD;
  CHECK_EQ(error_class(MPI_Comm_connect("not-a-port", rank == 0 ? MPI_INFO_NULL : wrong_kind, 0, MPI_COMM_WORLD, &got)),
           MPI_ERR_PORT);
  CHECK(got == MPI_COMM_NULL);
  if (rank == 0) MPI_OK(MPI_Close_port(port));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm parent;
  MPI_OK(MPI_Comm_get_parent(&parent));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  int expect_remote = argc > 2 ? atoi(argv[2]) : 2;
  if (argc > 1 && (strcmp(argv[1], "server") == 0 || strcmp(argv[1], "client") == 0)) {
    if (argv[1][0] == 's') {
      server(parent, expect_remote);
    } else {
      client(parent, expect_remote);
    }
    if (rank == 0) printf("dynproc ports %s: OK\n", argv[1]);
    MPI_OK(MPI_Finalize());
    return 0;
  }
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

  /* Two independent jobs meet through the name service. */
  char* server_args[] = {"server", NULL};
  char* client_args[] = {"client", NULL};
  MPI_Comm s, c;
  MPI_OK(MPI_Comm_spawn(argv[0], server_args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &s, MPI_ERRCODES_IGNORE));
  MPI_OK(MPI_Comm_spawn(argv[0], client_args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c, MPI_ERRCODES_IGNORE));
  if (rank == 0) {
    int ready = 0, go = 1;
    MPI_OK(MPI_Recv(&ready, 1, MPI_INT, 0, 1, s, MPI_STATUS_IGNORE));
    CHECK_EQ(ready, 1);
    MPI_OK(MPI_Send(&go, 1, MPI_INT, 0, 2, c));
  }
  MPI_OK(MPI_Comm_disconnect(&s));
  MPI_OK(MPI_Comm_disconnect(&c));

  if (size >= 2) {
    halves(rank, size);
    MPI_Comm pair;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
    if (rank < 2) {
      join(rank);
      MPI_OK(MPI_Comm_free(&pair));
    }
  }
  bad_info_at_root(rank);
  /* A descriptor that is no socket. */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  int devnull = open("/dev/null", O_RDONLY);
  MPI_Comm none = MPI_COMM_WORLD;
  CHECK_EQ(error_class(MPI_Comm_join(devnull, &none)), MPI_ERR_ARG);
  CHECK(none == MPI_COMM_NULL);
  close(devnull);
  /* Disconnecting what cannot be disconnected. */
  MPI_Comm world = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_EQ(error_class(MPI_Comm_disconnect(&world)), MPI_ERR_COMM);
  MPI_Comm null = MPI_COMM_NULL;
  CHECK_EQ(error_class(MPI_Comm_disconnect(&null)), MPI_ERR_COMM);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("dynproc ports: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
