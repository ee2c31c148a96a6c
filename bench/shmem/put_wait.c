/* OpenSHMEM put/wait ping-pong: PE 0 writes a flag on PE n-1 with shmem_long_p and waits with
 * shmem_long_wait_until for the answer in its own flag; PE n-1 waits, then answers. Half the round
 * trip, in microseconds: the latency of the put/wait pattern every OpenSHMEM pipeline is made of
 * (measured quiet and beside CPU burners, bench/compare). Other PEs only join the
 * barriers. Plain OpenSHMEM 1.4 C (builds with any oshcc).
 *   oshrun -n 2 put_wait [round_trips]       (default 1000; median of 15 samples)
 * A round trip that reads a wrong value prints a WRONG line (bench/compare reports it). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "bench_results.h"

#define SAMPLES 15

static long ping, pong;

int main(int argc, char** argv) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), last = n - 1;
  long round_trips = argc > 1 ? atol(argv[1]) : 1000;
  if (n < 2) {
    if (me == 0) fprintf(stderr, "put_wait: run on at least 2 PEs\n");
    shmem_global_exit(2);
  }
  double samples[SAMPLES];
  long value = 0;
  for (int s = -1; s < SAMPLES; ++s) { /* sample -1: warm-up */
    shmem_barrier_all();
    double t0 = bench_now_us();
    for (long i = 0; i < round_trips; ++i) {
      ++value;
      if (me == 0) {
        shmem_long_p(&ping, value, last);
        shmem_long_wait_until(&pong, SHMEM_CMP_EQ, value);
      } else if (me == last) {
        shmem_long_wait_until(&ping, SHMEM_CMP_EQ, value);
        shmem_long_p(&pong, value, 0);
      }
    }
    if (s >= 0) samples[s] = (bench_now_us() - t0) / (double)round_trips / 2;
  }
  shmem_barrier_all();
  if ((me == 0 && pong != value) || (me == last && ping != value)) {
    printf("WRONG put_wait: PE %d: flag %ld after %ld round trips\n", me, me == 0 ? pong : ping, value);
  }
  if (me == 0) {
    bench_sort(samples, SAMPLES);
    printf("# OpenSHMEM put/wait ping-pong, %d PEs (PE 0 <-> PE %d), half round trip\n", n, last);
    printf("put_wait 8 B: %.3f us (median of %d samples of %ld round trips; min %.3f, max %.3f)\n",
           samples[SAMPLES / 2], SAMPLES, round_trips, samples[0], samples[SAMPLES - 1]);
    char figure[64]; /* one row per job size: the 2-, 4- and 16-PE cases must not share one */
    snprintf(figure, sizeof figure, "shmem_put_wait_latency_%dPEs", n);
    bench_result(figure, "8", samples[SAMPLES / 2], "us");
  }
  shmem_finalize();
  return 0;
}
