/* The profiling interface: a tool defining MPI_Send and MPI_Startall (interposer.c) sees exactly
 * the user's calls — their number and bytes — while the data still arrives through PMPI_Send; the
 * library's own internal calls (MPI_Start goes through PMPI_Startall, MPI_Sendrecv and collectives
 * do not call MPI_Send) stay invisible to it. Even ranks send to the next odd rank. */
#include <string.h>

#include "interposer.h"
#include "tests/mpi/check.h"

enum { kMessages = 3, kInts = 4 };

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size % 2 == 0);
  int peer = rank ^ 1, sender = rank % 2 == 0;
  int data[kInts];

  for (int m = 0; m < kMessages; ++m) {
    if (sender) {
      for (int i = 0; i < kInts; ++i) data[i] = rank * 1000 + m * 10 + i;
      MPI_OK(MPI_Send(data, kInts, MPI_INT, peer, m, MPI_COMM_WORLD));
    } else {
      MPI_OK(MPI_Recv(data, kInts, MPI_INT, peer, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < kInts; ++i) CHECK_EQ(data[i], peer * 1000 + m * 10 + i);
    }
  }

  /* The library's calls between bindings do not reach the tool. */
  MPI_Request req;
  int value = rank;
  if (sender) {
    MPI_OK(MPI_Send_init(&value, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &req));
  } else {
    MPI_OK(MPI_Recv_init(&value, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &req));
  }
  MPI_OK(MPI_Start(&req)); /* PMPI_Startall inside: not seen */
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_EQ(value, sender ? rank : peer);
  MPI_OK(MPI_Startall(1, &req)); /* the user's own call: seen */
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Request_free(&req));
  int got = -1;
  MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, peer, 8, &got, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_EQ(got, peer);
  int sum = 0;
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_EQ(sum, size * (size - 1) / 2);

  struct ToolCounts c = tool_counts();
  CHECK_EQ(c.sends, sender ? kMessages : 0);
  CHECK_EQ(c.send_bytes, sender ? kMessages * kInts * (long long)sizeof(int) : 0);
  CHECK_EQ(c.startalls, 1);

  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("profiling_test: ok on %d ranks\n", size);
  return 0;
}
