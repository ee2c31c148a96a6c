/* Regression: MPI_Type_get_contents returned the derived types a type was built
 * from without taking a reference; the caller freed them, as the standard requires, and the
 * original type became invalid (MPI_ERR_TYPE at its next use). Returned handles are references of
 * their own: the original and the returned handle both stay usable until each is freed, and a
 * constituent stays alive while a type built from it does. Data sent with the types is compared. */
#include <string.h>

#include "check.h"

static void check_vector_of_ints(MPI_Datatype t) {  /* 3 blocks of 2 ints, stride 4 */
  int size = 0;
  MPI_OK(MPI_Type_size(t, &size));
  CHECK_EQ(size, 6 * (int)sizeof(int));
}

int main(int argc, char** argv) {
  init_at_level_arg(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  MPI_Datatype vec, dup, contig;
  MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
  MPI_OK(MPI_Type_dup(vec, &dup));
  MPI_OK(MPI_Type_contiguous(2, dup, &contig));
  MPI_OK(MPI_Type_commit(&contig));

  /* What mpi4py's dtlib does: decode, then free every derived handle returned. */
  for (int round = 0; round < 3; round++) {
    int ni, na, nd, combiner;
    MPI_OK(MPI_Type_get_envelope(contig, &ni, &na, &nd, &combiner));
    CHECK_EQ(combiner, MPI_COMBINER_CONTIGUOUS);
    CHECK_EQ(nd, 1);
    int ints[4];
    MPI_Aint addrs[1];
    MPI_Datatype inner;
    MPI_OK(MPI_Type_get_contents(contig, 4, 1, 1, ints, addrs, &inner));
    CHECK_EQ(ints[0], 2);
    MPI_Datatype inner_of_inner;
    MPI_OK(MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner));
    CHECK_EQ(combiner, MPI_COMBINER_DUP);
    MPI_OK(MPI_Type_get_contents(inner, 0, 0, 1, ints, addrs, &inner_of_inner));
    check_vector_of_ints(inner_of_inner);
    MPI_OK(MPI_Type_free(&inner_of_inner));
    CHECK(inner_of_inner == MPI_DATATYPE_NULL);
    MPI_OK(MPI_Type_free(&inner));
  }
  /* The user's handles are still valid after the decoder freed its copies. */
  check_vector_of_ints(vec);
  check_vector_of_ints(dup);
  int contig_size = 0;
  MPI_OK(MPI_Type_size(contig, &contig_size));
  CHECK_EQ(contig_size, 12 * (int)sizeof(int));

  /* Constituents freed by the user: the type built from them still works, and decoding it hands
   * out a valid handle of the freed constituent, which the caller frees in turn. */
  MPI_OK(MPI_Type_free(&vec));
  MPI_OK(MPI_Type_free(&dup));
  MPI_Datatype inner;
  int ints[1];
  MPI_Aint addrs[1];
  MPI_OK(MPI_Type_get_contents(contig, 1, 0, 1, ints, addrs, &inner));
  int ni, na, nd, combiner;
  MPI_OK(MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner));
  CHECK_EQ(combiner, MPI_COMBINER_DUP);
  MPI_OK(MPI_Type_free(&inner));
  /* New types made now must not take over the live handles. */
  MPI_Datatype other;
  MPI_OK(MPI_Type_contiguous(5, MPI_DOUBLE, &other));

  /* contig moves data: rank r sends 2 x (3 blocks of 2 ints) to rank r+1. */
  int send[24], recv[24];
  for (int i = 0; i < 24; i++) send[i] = rank * 1000 + i, recv[i] = -1;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_OK(MPI_Sendrecv(send, 1, contig, right, 7, recv, 1, contig, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  /* contig's ints: element j (extent 10 ints) has blocks b at j*10 + b*4 + {0, 1}; others untouched */
  int moved[24] = {0};
  for (int j = 0; j < 2; j++)
    for (int b = 0; b < 3; b++) moved[j * 10 + b * 4] = moved[j * 10 + b * 4 + 1] = 1;
  for (int i = 0; i < 24; i++) CHECK_EQ(recv[i], moved[i] ? left * 1000 + i : -1);
  MPI_OK(MPI_Type_free(&contig));
  MPI_OK(MPI_Type_free(&other));
  CHECK(contig == MPI_DATATYPE_NULL);

  if (rank == 0) printf("type_get_contents_ownership: ok on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
