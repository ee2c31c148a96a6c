/* Persistent collectives are matched by the order of their initialization calls, not by the
 * order of MPI_Start (MPI 4.1 section 6.13): every rank initializes an allreduce, a broadcast
 * and a gather in the same order, then ranks start them in different orders, several times,
 * with blocking collectives and other persistent starts in between; every result is checked. */
#include "check.h"

#define N 64

int main(int argc, char** argv) {
  int rank, size;
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int sendv[N], sum[N], bcastv[N], gathered[8];
  double mine;
  MPI_Request req[3];
  MPI_OK(MPI_Allreduce_init(sendv, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  MPI_OK(MPI_Bcast_init(bcastv, N, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  MPI_OK(MPI_Gather_init(&mine, 1, MPI_DOUBLE, gathered, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
  (void)gathered;
  double gathered_d[8];
  MPI_Request gather_d;
  MPI_OK(MPI_Gather_init(&mine, 1, MPI_DOUBLE, gathered_d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &gather_d));
  MPI_OK(MPI_Request_free(&req[2]));
  req[2] = gather_d;

  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < N; i++) {
      sendv[i] = rank * 1000 + i + round;
      sum[i] = -1;
      bcastv[i] = rank == size - 1 ? 7 * i + round : -1;
    }
    mine = rank + 0.5 * round;
    /* each rank its own start order: a rotation by rank + round, reversed on odd ranks */
    int order[3];
    for (int k = 0; k < 3; k++) order[k] = (k + rank + round) % 3;
    if (rank % 2) {
      int t = order[0];
      order[0] = order[2];
      order[2] = t;
    }
    for (int k = 0; k < 3; k++) MPI_OK(MPI_Start(&req[order[k]]));
    if (round % 2) {  /* a blocking collective while they are active */
      int one = 1, all = 0;
      MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      CHECK_EQ(all, size);
    }
    MPI_OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
      CHECK_EQ(sum[i], 1000 * size * (size - 1) / 2 + size * (i + round));
      CHECK_EQ(bcastv[i], 7 * i + round);
    }
    if (rank == 0) {
      for (int r = 0; r < size && r < 8; r++) CHECK(gathered_d[r] == r + 0.5 * round);
    }
  }
  for (int k = 0; k < 3; k++) MPI_OK(MPI_Request_free(&req[k]));
  MPI_OK(MPI_Finalize());
  return 0;
}
