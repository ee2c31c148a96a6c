/* MPI 4.1's status accessors and non-destructive completion queries (sections 3.2.5, 3.7.5):
 * - MPI_Status_set_source/tag/error store what MPI_Status_get_* and the public fields read back;
 *   MPI_Status_set_elements_c is read back by MPI_Get_elements_c;
 * - MPI_Request_get_status_all/any/some report completion like MPI_Testall/any/some but free
 *   nothing and leave every handle as it was: the requests are still waited for afterwards;
 * - with no active request, _any gives flag = true and index = MPI_UNDEFINED, _some outcount =
 *   MPI_UNDEFINED; _all gives flag = true.
 * Rank r receives from r-1 while rank r-1 sends only after a barrier, so before it nothing can be
 * complete. */
#include "tests/mpi/check.h"

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

  MPI_Status st;
  MPI_OK(MPI_Status_set_source(&st, 3));
  MPI_OK(MPI_Status_set_tag(&st, 42));
  MPI_OK(MPI_Status_set_error(&st, MPI_ERR_TAG));
  int v = -1;
  MPI_OK(MPI_Status_get_source(&st, &v));
  CHECK_EQ(v, 3);
  CHECK_EQ(st.MPI_SOURCE, 3);
  MPI_OK(MPI_Status_get_tag(&st, &v));
  CHECK_EQ(v, 42);
  MPI_OK(MPI_Status_get_error(&st, &v));
  CHECK_EQ(v, MPI_ERR_TAG);
  MPI_OK(MPI_Status_set_elements_c(&st, MPI_INT, (MPI_Count)5));
  MPI_Count elements = -1;
  MPI_OK(MPI_Get_elements_c(&st, MPI_INT, &elements));
  CHECK_EQ(elements, 5);

  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  enum { kN = 3 };
  int in[kN] = {-1, -1, -1}, out[kN];
  MPI_Request reqs[kN];
  for (int i = 0; i < kN; i++) MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, prev, 10 + i, MPI_COMM_WORLD, &reqs[i]));
  MPI_Request saved[kN] = {reqs[0], reqs[1], reqs[2]};
  int flag = -1, index = -1, outcount = -1, indices[kN];
  MPI_Status sts[kN];
  MPI_OK(MPI_Request_get_status_all(kN, reqs, &flag, sts));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Request_get_status_any(kN, reqs, &index, &flag, &st));
  CHECK_EQ(flag, 0);
  CHECK_EQ(index, MPI_UNDEFINED);
  MPI_OK(MPI_Request_get_status_some(kN, reqs, &outcount, indices, sts));
  CHECK_EQ(outcount, 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Only the message of tag 11 is sent at first. */
  out[1] = 100 * rank + 1;
  MPI_OK(MPI_Send(&out[1], 1, MPI_INT, next, 11, MPI_COMM_WORLD));
  do {
    MPI_OK(MPI_Request_get_status_any(kN, reqs, &index, &flag, &st));
  } while (!flag);
  CHECK_EQ(index, 1);
  CHECK_EQ(st.MPI_SOURCE, prev);
  CHECK_EQ(st.MPI_TAG, 11);
  CHECK_EQ(in[1], 100 * prev + 1);
  for (int i = 0; i < kN; i++) CHECK(reqs[i] == saved[i]); /* nothing freed or nulled */
  MPI_OK(MPI_Request_get_status_some(kN, reqs, &outcount, indices, sts));
  CHECK_EQ(outcount, 1);
  CHECK_EQ(indices[0], 1);
  CHECK_EQ(sts[0].MPI_TAG, 11);
  MPI_OK(MPI_Request_get_status_all(kN, reqs, &flag, MPI_STATUSES_IGNORE));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank has checked before tags 10 and 12 leave */
  out[0] = 100 * rank, out[2] = 100 * rank + 2;
  MPI_OK(MPI_Send(&out[0], 1, MPI_INT, next, 10, MPI_COMM_WORLD));
  MPI_OK(MPI_Send(&out[2], 1, MPI_INT, next, 12, MPI_COMM_WORLD));
  do {
    MPI_OK(MPI_Request_get_status_all(kN, reqs, &flag, sts));
  } while (!flag);
  for (int i = 0; i < kN; i++) {
    CHECK_EQ(sts[i].MPI_TAG, 10 + i);
    CHECK_EQ(sts[i].MPI_SOURCE, prev);
    CHECK_EQ(in[i], 100 * prev + i);
    CHECK(reqs[i] == saved[i]);
  }
  /* Still the user's requests: the wait frees them now, with the same statuses. */
  MPI_OK(MPI_Waitall(kN, reqs, sts));
  for (int i = 0; i < kN; i++) {
    CHECK(reqs[i] == MPI_REQUEST_NULL);
    CHECK_EQ(sts[i].MPI_TAG, 10 + i);
  }
  /* No active request at all. */
  MPI_OK(MPI_Request_get_status_any(kN, reqs, &index, &flag, &st));
  CHECK_EQ(flag, 1);
  CHECK_EQ(index, MPI_UNDEFINED);
  MPI_OK(MPI_Request_get_status_some(kN, reqs, &outcount, indices, sts));
  CHECK_EQ(outcount, MPI_UNDEFINED);
  MPI_OK(MPI_Request_get_status_all(kN, reqs, &flag, sts));
  CHECK_EQ(flag, 1);
  /* A freed handle is an error naming the call. */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_EQ(MPI_Request_get_status_all(1, saved, &flag, sts), MPI_ERR_REQUEST);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("ok: status accessors and MPI_Request_get_status_all/any/some (%d ranks)\n", size);
  return 0;
}
