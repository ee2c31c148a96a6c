/* What bench/io's programs share (plain MPI, no gasket dependency): the file view they time, a
 * 3-D block-distributed array of doubles (darray over MPI_Dims_create's grid, C order), and the
 * median of their samples. */
#ifndef GASKET_BENCH_IO_IO_DARRAY_H_
#define GASKET_BENCH_IO_IO_DARRAY_H_

#include <mpi.h>
#include <stdlib.h>

#include "bench/common/bench_clock.h"

/* This rank's block of an edge^3 array of doubles block-distributed over `size` ranks, committed;
 * *n_local gets the doubles it holds. */
static inline MPI_Datatype darray_of_doubles(int edge, int rank, int size, long* n_local) {
  int g[3] = {edge, edge, edge}, p[3] = {0, 0, 0};
  int distribs[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Dims_create(size, 3, p);
  MPI_Datatype ft;
  MPI_Type_create_darray(size, rank, 3, g, distribs, dargs, p, MPI_ORDER_C, MPI_DOUBLE, &ft);
  MPI_Type_commit(&ft);
  int tsize;
  MPI_Type_size(ft, &tsize);
  *n_local = tsize / 8;
  return ft;
}

/* The median of `n` samples (sorts them). */
static inline double median_of(double* v, int n) {
  bench_sort(v, n);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
