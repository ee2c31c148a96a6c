/* The start of every loop program: MPI_Init, this rank and the world size, and the number of
 * rounds (argv[1], else `default_rounds`; at least 1). */
#ifndef GASKET_TESTS_HANGS_LOOP_H_
#define GASKET_TESTS_HANGS_LOOP_H_

#include "tests/mpi/check.h"

static int start_rounds(int* argc, char*** argv, int default_rounds, int* rank, int* size) {
  MPI_OK(MPI_Init(argc, argv));
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  int rounds = *argc > 1 ? atoi((*argv)[1]) : default_rounds;
  return rounds > 0 ? rounds : 1;
}

#endif
