/* Large MPI_Scatter and MPI_Alltoall (1 MiB and 64 KiB + 1 blocks: past the staged path, through the
 * point-to-point schedules) with every byte checked, and the way each block moved: a receiver pulls
 * a same-node rendezvous alone (MPI_T counter mpi_rendezvous_split stays put at every rank). Before,
 * each receiver of a large scatter asked the root to copy half of its block (split pull), so the
 * root copied half of every receiver's block one after the other while they waited for it.
 *  - scatter from every root, the root in place every other round; alltoall in place and not;
 *  - odd block sizes (an element of 3 bytes), so the halves a split would make are uneven;
 *  - the same on a rank-reversed split communicator, the non-blocking forms (the same
 *    schedules, their receives pulled alone too) and a persistent alltoall started twice.
 * The backend paths move no same-node rendezvous by kernel copy (no split either): the data checks
 * hold there as well. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_pattern.h"
#include "check.h"

static MPI_T_pvar_session session;
static MPI_T_pvar_handle split;

static unsigned long long splits(void) {
  unsigned long long v = 0;
  MPI_OK(MPI_T_pvar_read(session, split, &v));
  return v;
}

/* `elems` elements of 3 bytes per block; `nonblocking`: MPI_Iscatter / MPI_Ialltoall. */
static void run_round(MPI_Comm comm, int round, int elems, MPI_Datatype triple, int nonblocking,
                      unsigned char* send, unsigned char* recv) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const int64_t block = 3 * (int64_t)elems;
  const int in_place = round % 2 == 1;
  MPI_Request req;

  for (int root = 0; root < n; ++root) {
    if (rank == root) {
      for (int d = 0; d < n; ++d) fill(send + d * block, root, d, round, block);
    }
    memset(recv, 0xee, (size_t)block);
    void* into = rank == root && in_place ? MPI_IN_PLACE : recv;
    unsigned long long before = splits();
    if (nonblocking) {
      MPI_OK(MPI_Iscatter(send, elems, triple, into, elems, triple, root, comm, &req));
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      MPI_OK(MPI_Scatter(send, elems, triple, into, elems, triple, root, comm));
    }
    CHECK_EQ(splits(), before);
    if (into != MPI_IN_PLACE) expect(recv, root, rank, round, block, "MPI_Scatter");
  }

  const int64_t all = block * n;
  for (int d = 0; d < n; ++d) fill((in_place ? recv : send) + d * block, rank, d, round, block);
  if (!in_place) memset(recv, 0xee, (size_t)all);
  const void* from = in_place ? MPI_IN_PLACE : send;
  unsigned long long before = splits();
  if (nonblocking) {
    MPI_OK(MPI_Ialltoall(from, elems, triple, recv, elems, triple, comm, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    MPI_OK(MPI_Alltoall(from, elems, triple, recv, elems, triple, comm));
  }
  CHECK_EQ(splits(), before);
  for (int s = 0; s < n; ++s) expect(recv + s * block, s, rank, round, block, "MPI_Alltoall");
}

/* A persistent MPI_Alltoall of `elems` triples, started twice with new data each time: each
 * start's blocks complete within that start (a schedule whose sends are awaited only at its end
 * is at rest again when MPI_Wait returns, and MPI_Start runs it anew). */
static void persistent_alltoall(MPI_Comm comm, int elems, MPI_Datatype triple, unsigned char* send,
                                unsigned char* recv) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const int64_t block = 3 * (int64_t)elems;
  MPI_Request req;
  MPI_OK(MPI_Alltoall_init(send, elems, triple, recv, elems, triple, comm, MPI_INFO_NULL, &req));
  for (int start = 0; start < 2; ++start) {
    const int round = 10 + start;
    for (int d = 0; d < n; ++d) fill(send + d * block, rank, d, round, block);
    memset(recv, 0xee, (size_t)(block * n));
    unsigned long long before = splits();
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_EQ(splits(), before);
    for (int s = 0; s < n; ++s) expect(recv + s * block, s, rank, round, block, "MPI_Alltoall_init");
  }
  MPI_OK(MPI_Request_free(&req));
}

static void run_all(MPI_Comm comm, MPI_Datatype triple) {
  int n;
  MPI_Comm_size(comm, &n);
  const int sizes[] = {(1 << 20) / 3 + 1, (64 << 10) / 3 + 1};
  const int64_t most = 3 * (int64_t)sizes[0] * n;
  unsigned char* send = malloc((size_t)most);
  unsigned char* recv = malloc((size_t)most);
  CHECK(send != NULL && recv != NULL);
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    for (int round = 0; round < 4; ++round) run_round(comm, round, sizes[k], triple, round >= 2, send, recv);
    persistent_alltoall(comm, sizes[k], triple, send, recv);
  }
  free(recv);
  free(send);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int provided, index, count;
  MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  MPI_OK(MPI_T_pvar_session_create(&session));
  MPI_OK(MPI_T_pvar_get_index("mpi_rendezvous_split", MPI_T_PVAR_CLASS_COUNTER, &index));
  MPI_OK(MPI_T_pvar_handle_alloc(session, index, NULL, &split, &count));
  MPI_OK(MPI_T_pvar_start(session, split));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype triple;
  MPI_OK(MPI_Type_contiguous(3, MPI_BYTE, &triple));
  MPI_OK(MPI_Type_commit(&triple));
  run_all(MPI_COMM_WORLD, triple);
  MPI_Comm reversed;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed));
  run_all(reversed, triple);
  MPI_OK(MPI_Comm_free(&reversed));
  MPI_OK(MPI_Type_free(&triple));
  MPI_OK(MPI_T_pvar_handle_free(session, &split));
  MPI_OK(MPI_T_pvar_session_free(&session));
  MPI_OK(MPI_T_finalize());
  if (rank == 0) printf("coll_pull_alone: %d ranks: ok\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
