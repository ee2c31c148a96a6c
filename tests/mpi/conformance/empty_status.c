/* The empty status (MPI 4.1 section 3.7.3): a null or inactive request completes at once with
 * source MPI_ANY_SOURCE, tag MPI_ANY_TAG, a count of 0 and not cancelled. Its error field: the
 * completion calls leave MPI_ERROR as the caller's (section 3.2.5: only a call returning several
 * statuses writes it, when it returns MPI_ERR_IN_STATUS); MPI_Request_get_status and
 * MPI_Request_get_status_any, which query one status, report the whole empty status, MPI_SUCCESS.
 * Every completion call that can meet one is checked with statuses filled with junk first:
 * MPI_Wait, MPI_Test, MPI_Request_get_status, MPI_Waitany / MPI_Testany /
 * MPI_Request_get_status_any over null requests only, MPI_Waitall / MPI_Testall mixing null,
 * inactive and active requests; on a null request and on inactive persistent sends and receives
 * (before their first start and after a completed one). */
#include <string.h>

#include "../check.h"

static int rank, size;

#define JUNK 0x5a

static void junk(MPI_Status* st, int n) { memset(st, JUNK, sizeof(MPI_Status) * (size_t)n); }

/* `error`: what MPI_ERROR must hold (MPI_SUCCESS, or the junk the caller left: UNTOUCHED). */
static int untouched(void) {
  int v;
  memset(&v, JUNK, sizeof v);
  return v;
}
static void check_empty(const MPI_Status* st, int error) {
  int count = -1, cancelled = -1;
  CHECK_EQ(st->MPI_SOURCE, MPI_ANY_SOURCE);
  CHECK_EQ(st->MPI_TAG, MPI_ANY_TAG);
  CHECK_EQ(st->MPI_ERROR, error);
  MPI_OK(MPI_Get_count(st, MPI_INT, &count));
  CHECK_EQ(count, 0);
  MPI_OK(MPI_Test_cancelled(st, &cancelled));
  CHECK_EQ(cancelled, 0);
}

/* Every single-request completion call on `*req`, which is null or inactive. */
static void check_single(MPI_Request* req) {
  MPI_Status st;
  int flag = -1;
  MPI_Request before = *req;
  junk(&st, 1);
  MPI_OK(MPI_Wait(req, &st));
  check_empty(&st, untouched());
  CHECK(*req == before); /* an inactive persistent request stays allocated */
  junk(&st, 1);
  MPI_OK(MPI_Test(req, &flag, &st));
  CHECK_EQ(flag, 1);
  check_empty(&st, untouched());
  junk(&st, 1);
  flag = -1;
  MPI_OK(MPI_Request_get_status(*req, &flag, &st));
  CHECK_EQ(flag, 1);
  check_empty(&st, MPI_SUCCESS);
}

static void check_any(void) {
  MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st;
  int index = -7, flag = -1;
  junk(&st, 1);
  MPI_OK(MPI_Waitany(3, reqs, &index, &st));
  CHECK_EQ(index, MPI_UNDEFINED);
  check_empty(&st, untouched());
  junk(&st, 1);
  index = -7;
  MPI_OK(MPI_Testany(3, reqs, &index, &flag, &st));
  CHECK_EQ(flag, 1);
  CHECK_EQ(index, MPI_UNDEFINED);
  check_empty(&st, untouched());
  junk(&st, 1);
  index = -7;
  flag = -1;
  MPI_OK(MPI_Request_get_status_any(3, reqs, &index, &flag, &st));
  CHECK_EQ(flag, 1);
  CHECK_EQ(index, MPI_UNDEFINED);
  check_empty(&st, MPI_SUCCESS);
}

/* Waitall / Testall: a null request, an inactive persistent receive and an active exchange with
 * the neighbour; the first two statuses are empty, the third reports the message; no MPI_ERROR
 * is written (no MPI_ERR_IN_STATUS). */
static void check_all(int use_test) {
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  int out = 100 + rank, in = -1, unused = 0;
  MPI_Request reqs[4];
  MPI_Status st[4];
  reqs[0] = MPI_REQUEST_NULL;
  MPI_OK(MPI_Recv_init(&unused, 1, MPI_INT, from, 9, MPI_COMM_WORLD, &reqs[1]));
  MPI_OK(MPI_Irecv(&in, 1, MPI_INT, from, 8, MPI_COMM_WORLD, &reqs[2]));
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &reqs[3]));
  junk(st, 4);
  if (use_test) {
    int flag = 0;
    while (!flag) MPI_OK(MPI_Testall(4, reqs, &flag, st));
  } else {
    MPI_OK(MPI_Waitall(4, reqs, st));
  }
  check_empty(&st[0], untouched());
  check_empty(&st[1], untouched());
  CHECK_EQ(st[2].MPI_ERROR, untouched());
  CHECK_EQ(st[2].MPI_SOURCE, from);
  CHECK_EQ(st[2].MPI_TAG, 8);
  CHECK_EQ(in, 100 + from);
  CHECK(reqs[1] != MPI_REQUEST_NULL);
  MPI_OK(MPI_Request_free(&reqs[1]));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;

  MPI_Request req = MPI_REQUEST_NULL;
  check_single(&req);
  CHECK(req == MPI_REQUEST_NULL);

  /* Persistent requests, inactive before their first start and after a completed one. */
  int out = rank, in = -1;
  MPI_Request send_req, recv_req;
  MPI_OK(MPI_Send_init(&out, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &send_req));
  MPI_OK(MPI_Recv_init(&in, 1, MPI_INT, from, 3, MPI_COMM_WORLD, &recv_req));
  check_single(&send_req);
  check_single(&recv_req);
  MPI_OK(MPI_Start(&recv_req));
  MPI_OK(MPI_Start(&send_req));
  MPI_Status st;
  MPI_OK(MPI_Wait(&recv_req, &st));
  CHECK_EQ(st.MPI_SOURCE, from);
  CHECK_EQ(in, from);
  MPI_OK(MPI_Wait(&send_req, MPI_STATUS_IGNORE));
  check_single(&send_req);
  check_single(&recv_req);
  MPI_OK(MPI_Request_free(&send_req));
  MPI_OK(MPI_Request_free(&recv_req));

  check_any();
  check_all(0);
  check_all(1);

  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("empty_status: ok\n");
  MPI_Finalize();
  return 0;
}
