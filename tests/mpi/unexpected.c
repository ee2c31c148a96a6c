/* Unexpected messages are bounded (GASKET_MPI_UNEXPECTED_LIMIT, set small here before MPI_Init):
 * every rank sends far more eager-sized bytes to every other rank than the limit, none received
 * yet (standard, synchronous and non-contiguous sends); after a barrier each rank receives them
 * all with MPI_ANY_SOURCE/MPI_ANY_TAG and checks data, status and the order per source. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { kMessages = 300, kMaxBytes = 20000 };
static const int sizes[] = {0, 1, 100, 1000, 4000, 20000, 7};

static unsigned char pattern(int src, int k, int i) { return (unsigned char)(src * 13 + k * 7 + i); }

int main(int argc, char** argv) {
  setenv("GASKET_MPI_UNEXPECTED_LIMIT", "64K", 0);
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Datatype every_other;  /* non-contiguous: n bytes taken from 2n */
  int npeers = size - 1;
  unsigned char** out = calloc((size_t)kMessages * size, sizeof *out);
  MPI_Request* req = malloc(sizeof *req * (size_t)kMessages * size);
  int nreq = 0;
  for (int k = 0; k < kMessages; ++k) {
    int n = sizes[k % (int)(sizeof sizes / sizeof sizes[0])];
    for (int d = 1; d <= npeers; ++d) {
      int dst = (rank + d) % size;
      unsigned char* b = malloc(2 * (size_t)n + 1);
      out[nreq] = b;
      if (k % 5 == 3) {  /* non-contiguous */
        for (int i = 0; i < n; ++i) b[2 * i] = pattern(rank, k, i);
        MPI_OK(MPI_Type_vector(n, 1, 2, MPI_BYTE, &every_other));
        MPI_OK(MPI_Type_commit(&every_other));
        MPI_OK(MPI_Isend(b, n > 0 ? 1 : 0, every_other, dst, k, MPI_COMM_WORLD, &req[nreq++]));
        MPI_OK(MPI_Type_free(&every_other));
      } else {
        for (int i = 0; i < n; ++i) b[i] = pattern(rank, k, i);
        if (k % 7 == 6) {
          MPI_OK(MPI_Issend(b, n, MPI_BYTE, dst, k, MPI_COMM_WORLD, &req[nreq++]));
        } else {
          MPI_OK(MPI_Isend(b, n, MPI_BYTE, dst, k, MPI_COMM_WORLD, &req[nreq++]));
        }
      }
    }
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int* next = calloc((size_t)size, sizeof *next);
  unsigned char* in = malloc(kMaxBytes);
  for (int m = 0; m < kMessages * npeers; ++m) {
    MPI_Status st;
    MPI_OK(MPI_Recv(in, kMaxBytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    int src = st.MPI_SOURCE;
    CHECK(src >= 0 && src < size && src != rank);
    int k = next[src]++;
    CHECK_EQ(st.MPI_TAG, k);
    int n = sizes[k % (int)(sizeof sizes / sizeof sizes[0])], count;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, n);
    for (int i = 0; i < n; ++i) {
      if (in[i] != pattern(src, k, i)) {
        fprintf(stderr, "rank %d: byte %d of message %d from %d: %u != %u\n", rank, i, k, src, in[i],
                pattern(src, k, i));
        CHECK(0);
      }
    }
  }
  for (int s = 0; s < size; ++s) CHECK_EQ(next[s], s == rank ? 0 : kMessages);
  MPI_OK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < nreq; ++i) free(out[i]);
  free(out);
  free(req);
  free(next);
  free(in);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());
  return 0;
}
