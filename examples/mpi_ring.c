/* MPI hello and ring: every rank says hello (rank 0 gathers the greetings and prints them in
 * order), then a token goes around the ring twice, each rank adding its rank; rank 0 checks the
 * total against the closed form.  mpicc -o mpi_ring mpi_ring.c && mpiexec -n 4 ./mpi_ring */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define GREETING_LEN 64

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  char greeting[GREETING_LEN];
  snprintf(greeting, sizeof greeting, "hello from rank %d of %d", rank, size);
  char* all = rank == 0 ? malloc((size_t)size * GREETING_LEN) : NULL;
  MPI_Gather(greeting, GREETING_LEN, MPI_CHAR, all, GREETING_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++) printf("%s\n", all + (size_t)r * GREETING_LEN);
    free(all);
  }

  const int laps = 2, next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long token = 0;
  for (int lap = 0; lap < laps; lap++) {
    if (rank == 0) {
      token += rank;
      MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank;
      MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
    }
  }
  int status = 0;
  if (rank == 0) {
    long expected = (long)laps * size * (size - 1) / 2;
    if (token != expected) {
      fprintf(stderr, "mpi_ring: rank 0 got token %ld after %d laps, expected %ld\n", token, laps, expected);
      status = 1;
    } else {
      printf("mpi_ring: ok on %d ranks (token %ld)\n", size, token);
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
