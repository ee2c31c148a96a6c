/* The Fortran named datatypes from C (mpi.h): sizes and extents, every reduction the standard
 * defines on them (integers of each size including INTEGER16, reals including REAL16, complexes
 * including COMPLEX32, LOGICAL, the MINLOC/MAXLOC pairs), an accumulate into a window, and the
 * refusal of an op the type does not allow (MPI_SUM on MPI_LOGICAL, MPI_MAX on MPI_COMPLEX). */
#include <stdint.h>
#include <string.h>

#include "tests/mpi/check.h"

static int rank, size;

/* Allreduce of one value per rank, value(r) = r + 1, with `op`: the result as int64. */
#define SUM_OF_RANKS ((long long)size * (size + 1) / 2)

static void integers(void) {
  struct { MPI_Datatype type; int bytes; } types[] = {
      {MPI_INTEGER, 4}, {MPI_INTEGER1, 1}, {MPI_INTEGER2, 2}, {MPI_INTEGER4, 4}, {MPI_INTEGER8, 8}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
    int s = 0;
    MPI_Type_size(types[i].type, &s);
    CHECK_EQ(s, types[i].bytes);
    int64_t in = rank + 1, out = 0;  /* little-endian: the low bytes are the value */
    MPI_Allreduce(&in, &out, 1, types[i].type, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(out, SUM_OF_RANKS);
    out = 0;
    MPI_Allreduce(&in, &out, 1, types[i].type, MPI_MAX, MPI_COMM_WORLD);
    CHECK_EQ(out, size);
    in = 0xF0 | (1 << (rank % 4));
    out = 0;
    MPI_Allreduce(&in, &out, 1, types[i].type, MPI_BOR, MPI_COMM_WORLD);
    CHECK_EQ(out, 0xF0 | (size >= 4 ? 0xF : (1 << size) - 1));
  }
  __int128 big = (__int128)1 << 100, total = 0;
  big += rank;
  MPI_Allreduce(&big, &total, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
  CHECK(total == ((__int128)size << 100) + (__int128)(SUM_OF_RANKS - size));
}

static void reals(void) {
  float f = (float)(rank + 1), fsum = 0;
  MPI_Allreduce(&f, &fsum, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD);
  CHECK(fsum == (float)SUM_OF_RANKS);
  MPI_Allreduce(&f, &fsum, 1, MPI_REAL4, MPI_PROD, MPI_COMM_WORLD);
  float factorial = 1;
  for (int r = 2; r <= size; ++r) factorial *= (float)r;
  CHECK(fsum == factorial);
  double d = 0.5 * (rank + 1), dmin = 0;
  MPI_Allreduce(&d, &dmin, 1, MPI_DOUBLE_PRECISION, MPI_MIN, MPI_COMM_WORLD);
  CHECK(dmin == 0.5);
  MPI_Allreduce(&d, &dmin, 1, MPI_REAL8, MPI_MAX, MPI_COMM_WORLD);
  CHECK(dmin == 0.5 * size);
  __float128 q = (__float128)1 / 3 + rank, qsum = 0;  /* more digits than double keeps */
  MPI_Allreduce(&q, &qsum, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
  __float128 want = (__float128)size / 3 + (SUM_OF_RANKS - size);
  __float128 diff = qsum - want;
  CHECK(diff < 1e-30 && diff > -1e-30);
  int s = 0;
  MPI_Type_size(MPI_REAL16, &s);
  CHECK_EQ(s, 16);
}

static void complexes(void) {
  float c[2] = {(float)rank, 1}, csum[2];
  MPI_Allreduce(c, csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  CHECK(csum[0] == (float)(SUM_OF_RANKS - size) && csum[1] == (float)size);
  double z[2] = {0, 1}, zprod[2];  /* i^size */
  MPI_Allreduce(z, zprod, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
  double want_re[4] = {1, 0, -1, 0}, want_im[4] = {0, 1, 0, -1};
  CHECK(zprod[0] == want_re[size % 4] && zprod[1] == want_im[size % 4]);
  MPI_Allreduce(z, zprod, 1, MPI_COMPLEX16, MPI_PROD, MPI_COMM_WORLD);
  CHECK(zprod[0] == want_re[size % 4] && zprod[1] == want_im[size % 4]);
  __float128 q[2] = {0, 1}, qprod[2];
  MPI_Allreduce(q, qprod, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD);
  CHECK(qprod[0] == (__float128)want_re[size % 4] && qprod[1] == (__float128)want_im[size % 4]);
  int s = 0;
  MPI_Type_size(MPI_COMPLEX32, &s);
  CHECK_EQ(s, 32);
  MPI_Type_size(MPI_COMPLEX8, &s);
  CHECK_EQ(s, 8);
}

static void logicals_and_pairs(void) {
  int32_t mine = rank != 0, all = -1, any = -1;  /* Fortran LOGICAL: 4 bytes, .TRUE. is 1 */
  MPI_Allreduce(&mine, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &any, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
  CHECK_EQ(all, 0);
  CHECK_EQ(any, 1);
  float r2[2] = {(float)(rank % 3), (float)rank}, r2max[2];
  MPI_Allreduce(r2, r2max, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD);
  int top = size >= 3 ? 2 : size - 1;
  CHECK(r2max[0] == (float)top && r2max[1] == (float)top);  /* ties: the smaller index */
  double d2[2] = {-(double)rank, (double)rank}, d2min[2];
  MPI_Allreduce(d2, d2min, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD);
  CHECK(d2min[0] == -(double)(size - 1) && d2min[1] == (double)(size - 1));
  int32_t i2[2] = {7, rank}, i2min[2];
  MPI_Allreduce(i2, i2min, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD);
  CHECK(i2min[0] == 7 && i2min[1] == 0);
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Type_get_name(MPI_2DOUBLE_PRECISION, name, &len);
  CHECK(strcmp(name, "MPI_2DOUBLE_PRECISION") == 0);
  CHECK_EQ(MPI_REAL2, MPI_DATATYPE_NULL);  /* gfortran has no REAL*2 */
}

static void accumulate_and_refusals(void) {
  double* base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Win_fence(0, win);
  double one = rank + 1;
  MPI_Accumulate(&one, 1, MPI_REAL8, 0, 0, 1, MPI_REAL8, MPI_SUM, win);
  MPI_Win_fence(0, win);
  if (rank == 0) CHECK(*base == (double)SUM_OF_RANKS);
  MPI_Win_free(&win);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int32_t flag = 1, out;
  int cls = 0;
  MPI_Error_class(MPI_Allreduce(&flag, &out, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD), &cls);
  CHECK_EQ(cls, MPI_ERR_OP);
  float c[2] = {0, 0}, cout[2];
  MPI_Error_class(MPI_Allreduce(c, cout, 1, MPI_COMPLEX, MPI_MAX, MPI_COMM_WORLD), &cls);
  CHECK_EQ(cls, MPI_ERR_OP);
  char ch = 'a', chout;
  MPI_Error_class(MPI_Allreduce(&ch, &chout, 1, MPI_CHARACTER, MPI_MAX, MPI_COMM_WORLD), &cls);
  CHECK_EQ(cls, MPI_ERR_OP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  integers();
  reals();
  complexes();
  logicals_and_pairs();
  accumulate_and_refusals();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("fortran_types: ok on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
