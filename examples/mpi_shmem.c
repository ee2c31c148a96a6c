/* MPI and OpenSHMEM in one program, on one runtime: MPI rank and PE numbers agree; each PE puts
 * its number into its right neighbour's symmetric variable with OpenSHMEM, then MPI sums what the
 * ranks received. mpicc -o mpi_shmem mpi_shmem.c && mpiexec -n 4 ./mpi_shmem (oshcc works too) */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>

static int from_left = -1; /* symmetric */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  shmem_init();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int me = shmem_my_pe(), npes = shmem_n_pes();

  int errors = 0;
  if (me != rank || npes != size) {
    fprintf(stderr, "mpi_shmem: MPI rank %d of %d is OpenSHMEM PE %d of %d\n", rank, size, me, npes);
    errors++;
  }
  shmem_int_p(&from_left, me, (me + 1) % npes);
  shmem_barrier_all();
  if (from_left != (me + npes - 1) % npes) {
    fprintf(stderr, "mpi_shmem: PE %d received %d, expected %d\n", me, from_left, (me + npes - 1) % npes);
    errors++;
  }
  int sum = -1, total_errors = 0;
  MPI_Allreduce(&from_left, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size - 1) / 2) {
    fprintf(stderr, "mpi_shmem: rank %d: MPI sum of the values OpenSHMEM delivered is %d, expected %d\n", rank, sum,
            size * (size - 1) / 2);
    errors++;
  }
  MPI_Allreduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total_errors == 0) printf("mpi_shmem: ok on %d ranks (sum %d)\n", size, sum);
  shmem_finalize();
  MPI_Finalize();
  return total_errors != 0;
}
