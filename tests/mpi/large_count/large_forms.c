/* The large-count (_c) forms beyond point-to-point (MPI 4.1): collectives, RMA, datatype
 * constructors and accessors, Pack/Unpack, MPI_Op_create_c, MPI_Reduce_local_c, Buffer_attach_c.
 * Types whose size and extent pass 2^31 (no memory behind them) report it through the _c
 * accessors while the int accessors answer MPI_UNDEFINED / MPI_ERR_VALUE_TOO_LARGE.
 * --huge (2 ranks, once: about 2 GiB per rank, 4 GiB on rank 0): MPI_Bcast_c of 2^31 + 8 MPI_BYTE
 * and MPI_Reduce_local_c (MPI_BXOR) over as many, every byte checked. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static int rank, size;

static unsigned char pattern(int64_t i, int k) { return (unsigned char)((i * 131 + (i >> 16) + k * 7) & 0xff); }

static int error_class(int rc) {
  int cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  return cls;
}

static void test_big_types(void) {
  const MPI_Count big = (MPI_Count)INT_MAX + 9;
  MPI_Datatype t, v, r;
  MPI_OK(MPI_Type_contiguous_c(big, MPI_BYTE, &t));
  MPI_Count sz = -1, lb = -1, ext = -1, tlb = -1, text = -1;
  MPI_OK(MPI_Type_size_c(t, &sz));
  MPI_OK(MPI_Type_get_extent_c(t, &lb, &ext));
  MPI_OK(MPI_Type_get_true_extent_c(t, &tlb, &text));
  CHECK_EQ(sz, big);
  CHECK_EQ(lb, 0);
  CHECK_EQ(ext, big);
  CHECK_EQ(text, big);
  int isz = 0;
  MPI_OK(MPI_Type_size(t, &isz));
  CHECK_EQ(isz, MPI_UNDEFINED);
  MPI_Aint alb, aext;
  MPI_OK(MPI_Type_get_extent(t, &alb, &aext));
  CHECK_EQ(aext, big);
  /* A vector of 3 blocks of 2^30 ints, stride 2^30 + 5 ints: 12 GiB of data, 12 GiB + extent. */
  const MPI_Count block = (MPI_Count)1 << 30;
  MPI_OK(MPI_Type_vector_c(3, block, block + 5, MPI_INT, &v));
  MPI_OK(MPI_Type_size_c(v, &sz));
  MPI_OK(MPI_Type_get_extent_c(v, &lb, &ext));
  CHECK_EQ(sz, 3 * block * 4);
  CHECK_EQ(ext, (2 * (block + 5) + block) * 4);
  /* The envelope and contents of a _c-made type: the counts are large counts. */
  MPI_Count ni, na, nl, nd;
  int combiner;
  MPI_OK(MPI_Type_get_envelope_c(v, &ni, &na, &nl, &nd, &combiner));
  CHECK_EQ(combiner, MPI_COMBINER_VECTOR);
  CHECK_EQ(ni, 0);
  CHECK_EQ(na, 0);
  CHECK_EQ(nl, 3);
  CHECK_EQ(nd, 1);
  MPI_Count larges[3];
  MPI_Datatype types[1];
  MPI_OK(MPI_Type_get_contents_c(v, 0, 0, 3, 1, NULL, NULL, larges, types));
  CHECK_EQ(larges[0], 3);
  CHECK_EQ(larges[1], block);
  CHECK_EQ(larges[2], block + 5);
  CHECK(types[0] == MPI_INT);
  /* The int envelope has no place for large counts. */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int ini, ina, ind;
  CHECK_EQ(error_class(MPI_Type_get_envelope(v, &ini, &ina, &ind, &combiner)), MPI_ERR_TYPE);
  /* MPI_Pack_size of 2 such bytes types does not fit an int: MPI_ERR_VALUE_TOO_LARGE; _c answers. */
  int psize = 0;
  CHECK_EQ(error_class(MPI_Pack_size(2, t, MPI_COMM_WORLD, &psize)), MPI_ERR_VALUE_TOO_LARGE);
  MPI_Count psize_c = 0;
  MPI_OK(MPI_Pack_size_c(2, t, MPI_COMM_WORLD, &psize_c));
  CHECK_EQ(psize_c, 2 * big);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* Resized with an MPI_Count extent beyond 2^31. */
  MPI_OK(MPI_Type_create_resized_c(MPI_INT, 0, big, &r));
  MPI_OK(MPI_Type_get_extent_c(r, &lb, &ext));
  CHECK_EQ(ext, big);
  MPI_OK(MPI_Type_free(&t));
  MPI_OK(MPI_Type_free(&v));
  MPI_OK(MPI_Type_free(&r));
}

/* Types made by the _c constructors move data like the int ones. */
static void test_constructors_and_pack(void) {
  int src[64], dst[64];
  for (int i = 0; i < 64; i++) src[i] = i * 3 + 1;
  MPI_Count bl[3] = {2, 1, 3}, disp[3] = {0, 5, 9};
  MPI_Count bdisp[3] = {0, 5 * 4, 9 * 4};
  MPI_Datatype idx, hidx, st, types[3] = {MPI_INT, MPI_INT, MPI_INT};
  MPI_OK(MPI_Type_indexed_c(3, bl, disp, MPI_INT, &idx));
  MPI_OK(MPI_Type_create_hindexed_c(3, bl, bdisp, MPI_INT, &hidx));
  MPI_OK(MPI_Type_create_struct_c(3, bl, bdisp, types, &st));
  MPI_Datatype all[3] = {idx, hidx, st};
  for (int k = 0; k < 3; k++) {
    MPI_OK(MPI_Type_commit(&all[k]));
    char packed[256];
    MPI_Count pos = 0, size_c = 0;
    MPI_OK(MPI_Pack_size_c(1, all[k], MPI_COMM_WORLD, &size_c));
    CHECK_EQ(size_c, 6 * 4);
    MPI_OK(MPI_Pack_c(src, 1, all[k], packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK_EQ(pos, 24);
    memset(dst, 0, sizeof dst);
    pos = 0;
    MPI_OK(MPI_Unpack_c(packed, 24, &pos, dst, 1, all[k], MPI_COMM_WORLD));
    int expect[] = {0, 1, 5, 9, 10, 11};
    for (int i = 0; i < 6; i++) CHECK_EQ(dst[expect[i]], src[expect[i]]);
    MPI_OK(MPI_Type_free(&all[k]));
  }
  /* external32: big-endian ints. */
  unsigned char ext[16];
  MPI_Aint epos = 0;
  MPI_Count cpos = 0, esize = 0;
  MPI_OK(MPI_Pack_external_size_c("external32", 2, MPI_INT, &esize));
  CHECK_EQ(esize, 8);
  MPI_OK(MPI_Pack_external_c("external32", src, 2, MPI_INT, ext, sizeof ext, &cpos));
  CHECK_EQ(cpos, 8);
  CHECK_EQ(ext[3], 1);
  CHECK_EQ(ext[7], 4);
  int back[2] = {0, 0};
  MPI_OK(MPI_Unpack_external("external32", ext, 8, &epos, back, 2, MPI_INT));
  CHECK_EQ(back[0], 1);
  CHECK_EQ(back[1], 4);
  /* Subarray with MPI_Count sizes. */
  MPI_Count sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype sub;
  MPI_OK(MPI_Type_create_subarray_c(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub));
  MPI_Count ssz;
  MPI_OK(MPI_Type_size_c(sub, &ssz));
  CHECK_EQ(ssz, 6 * 4);
  MPI_OK(MPI_Type_free(&sub));
}

static void sum_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  CHECK(*type == MPI_INT);
  for (MPI_Count i = 0; i < *len; i++) ((int*)inout)[i] += ((int*)in)[i];
}

static void test_collectives_and_ops(void) {
  enum { N = 4 };
  int mine[N], all[8 * N], out[8 * N];
  MPI_Count counts[8], rcounts[8];
  MPI_Aint displs[8];
  MPI_Datatype types[8];
  for (int r = 0; r < size; r++) counts[r] = N, displs[r] = (MPI_Aint)r * N, types[r] = MPI_INT;
  for (int i = 0; i < N; i++) mine[i] = rank * 100 + i;
  MPI_OK(MPI_Allgatherv_c(mine, N, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++)
    for (int i = 0; i < N; i++) CHECK_EQ(all[r * N + i], r * 100 + i);
  int b = rank == 0 ? 77 : 0;
  MPI_OK(MPI_Bcast_c(&b, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK_EQ(b, 77);
  /* Alltoallw_c: byte displacements. */
  int to[8 * N], from[8 * N];
  MPI_Aint bdispls[8];
  for (int r = 0; r < size; r++) {
    bdispls[r] = (MPI_Aint)(r * N * sizeof(int));
    for (int i = 0; i < N; i++) to[r * N + i] = rank * 1000 + r * 10 + i;
  }
  MPI_OK(MPI_Alltoallw_c(to, counts, bdispls, types, from, counts, bdispls, types, MPI_COMM_WORLD));
  for (int r = 0; r < size; r++)
    for (int i = 0; i < N; i++) CHECK_EQ(from[r * N + i], r * 1000 + rank * 10 + i);
  /* A user op with an MPI_Count length, in a collective and in MPI_Reduce_local_c. */
  MPI_Op op;
  MPI_OK(MPI_Op_create_c(sum_c, 1, &op));
  for (int r = 0; r < size; r++) rcounts[r] = 1;
  for (int i = 0; i < size; i++) all[i] = rank + i;
  MPI_OK(MPI_Reduce_scatter_c(all, out, rcounts, MPI_INT, op, MPI_COMM_WORLD));
  CHECK_EQ(out[0], size * (size - 1) / 2 + size * rank);
  MPI_OK(MPI_Allreduce_c(mine, out, N, MPI_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; i++) CHECK_EQ(out[i], 100 * size * (size - 1) / 2 + size * i);
  int acc[N] = {1, 2, 3, 4};
  MPI_OK(MPI_Reduce_local_c(mine, acc, N, MPI_INT, op));
  for (int i = 0; i < N; i++) CHECK_EQ(acc[i], rank * 100 + i + i + 1);
  MPI_OK(MPI_Op_free(&op));
}

static void test_rma(void) {
  enum { N = 8 };
  int* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate_c((MPI_Aint)(N * size * sizeof(int)), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
  for (int i = 0; i < N * size; i++) base[i] = 0;
  int mine[N], got[N], one[N];
  for (int i = 0; i < N; i++) mine[i] = rank * 10 + i, one[i] = 1;
  int right = (rank + 1) % size;
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Put_c(mine, N, MPI_INT, right, (MPI_Aint)rank * N, N, MPI_INT, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < N; i++) CHECK_EQ(base[((rank + size - 1) % size) * N + i], ((rank + size - 1) % size) * 10 + i);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* checked before the left neighbour accumulates into it */
  MPI_OK(MPI_Accumulate_c(one, N, MPI_INT, right, (MPI_Aint)rank * N, N, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Get_c(got, N, MPI_INT, right, (MPI_Aint)rank * N, N, MPI_INT, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < N; i++) CHECK_EQ(got[i], rank * 10 + i + 1);
  MPI_OK(MPI_Win_free(&win));
}

static void test_buffer(void) {
  static char pool[4096 + MPI_BSEND_OVERHEAD];
  MPI_OK(MPI_Buffer_attach_c(pool, (MPI_Count)sizeof pool));
  int x = rank, y = -1;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_OK(MPI_Bsend_c(&x, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv_c(&y, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_EQ(y, left);
  void* addr = NULL;
  MPI_Count got = 0;
  MPI_OK(MPI_Buffer_detach_c(&addr, &got));
  CHECK(addr == pool);
  CHECK_EQ(got, sizeof pool);
}

static void huge(void) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 8;
  unsigned char* buf = malloc((size_t)n);
  CHECK(buf != NULL);
  if (rank == 0) {
    for (MPI_Count i = 0; i < n; i++) buf[i] = pattern(i, 1);
  } else {
    memset(buf, 0, (size_t)n);
  }
  MPI_OK(MPI_Bcast_c(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD));
  for (MPI_Count i = 0; i < n; i++) {
    if (buf[i] != pattern(i, 1)) {
      fprintf(stderr, "rank %d: byte %lld of the bcast: %u\n", rank, (long long)i, buf[i]);
      CHECK(0);
    }
  }
  if (rank == 0) {
    unsigned char* acc = malloc((size_t)n);
    CHECK(acc != NULL);
    for (MPI_Count i = 0; i < n; i++) acc[i] = pattern(i, 2);
    MPI_OK(MPI_Reduce_local_c(buf, acc, n, MPI_BYTE, MPI_BXOR));
    for (MPI_Count i = 0; i < n; i++) {
      if (acc[i] != (unsigned char)(pattern(i, 1) ^ pattern(i, 2))) {
        fprintf(stderr, "byte %lld of the reduction: %u\n", (long long)i, acc[i]);
        CHECK(0);
      }
    }
    free(acc);
  }
  free(buf);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 8);
  if (argc > 1 && !strcmp(argv[1], "--huge")) {
    huge();
  } else {
    test_big_types();
    test_constructors_and_pack();
    test_collectives_and_ops();
    test_rma();
    test_buffer();
  }
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("large-count forms: ok at %d ranks\n", size);
  return 0;
}
