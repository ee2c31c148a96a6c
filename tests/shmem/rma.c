/* RMA: typed (generic and named), sized and mem put/get/p/g, iput/iget, nbi, ctx forms, and the
 * classic circular shift. */
#include <string.h>
#include "check.h"

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;

  /* circular shift: every PE puts its number into its right neighbour */
  int* shift = shmem_malloc(sizeof(int));
  *shift = -1;
  shmem_barrier_all();
  shmem_int_p(shift, me, right);
  shmem_barrier_all();
  CHECK_EQ(*shift, left);

  /* typed put/get through the C11 generics, several types */
  enum { N = 1000 };
  long* lsrc = shmem_malloc(N * sizeof(long));
  long* ldst = shmem_malloc(N * sizeof(long));
  double* dsrc = shmem_malloc(N * sizeof(double));
  double* ddst = shmem_malloc(N * sizeof(double));
  for (int i = 0; i < N; ++i) { lsrc[i] = me * 100000L + i; dsrc[i] = me + i * 0.5; ldst[i] = -1; ddst[i] = -1; }
  shmem_barrier_all();
  shmem_put(ldst, lsrc, N, right);
  shmem_put(ddst, dsrc, N, right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) { CHECK_EQ(ldst[i], left * 100000L + i); CHECK(ddst[i] == left + i * 0.5, "%g", ddst[i]); }
  long lget[N];
  shmem_get(lget, lsrc, N, right);
  for (int i = 0; i < N; ++i) CHECK_EQ(lget[i], right * 100000L + i);
  CHECK_EQ(shmem_g(&lsrc[7], right), right * 100000L + 7);
  short* sp = shmem_calloc(4, sizeof(short));
  shmem_barrier_all();
  shmem_p(&sp[2], (short)(me + 7), right);
  shmem_barrier_all();
  CHECK_EQ(sp[2], left + 7);

  /* sized and mem forms; a large transfer (several backend pieces) */
  size_t big = 1 << 20;
  unsigned char* bsrc = shmem_malloc(big);
  unsigned char* bdst = shmem_malloc(big);
  for (size_t i = 0; i < big; ++i) bsrc[i] = (unsigned char)(i * 7 + me);
  memset(bdst, 0, big);
  shmem_barrier_all();
  shmem_putmem(bdst, bsrc, big, right);
  shmem_barrier_all();
  for (size_t i = 0; i < big; i += 4093) CHECK_EQ(bdst[i], (unsigned char)(i * 7 + left));
  CHECK_EQ(bdst[big - 1], (unsigned char)((big - 1) * 7 + left));
  shmem_put32(ldst, lsrc, 2, right); /* 8 bytes = one long */
  shmem_put64(&ldst[1], &lsrc[1], 1, right);
  shmem_barrier_all();
  CHECK_EQ(ldst[0], left * 100000L);
  CHECK_EQ(ldst[1], left * 100000L + 1);
  long pair[2];
  shmem_get128(pair, lsrc, 1, right);
  CHECK_EQ(pair[1], right * 100000L + 1);
  shmem_getmem(lget, lsrc, 3 * sizeof(long), left);
  CHECK_EQ(lget[2], left * 100000L + 2);

  /* strided: every second element of the source into every third of the destination */
  for (int i = 0; i < N; ++i) ldst[i] = -1;
  shmem_barrier_all();
  shmem_long_iput(ldst, lsrc, 3, 2, 10, right);
  shmem_barrier_all();
  for (int i = 0; i < 10; ++i) { CHECK_EQ(ldst[3 * i], left * 100000L + 2 * i); CHECK_EQ(ldst[3 * i + 1], -1); }
  long gathered[10];
  shmem_iget64(gathered, lsrc, 1, 5, 10, right);
  for (int i = 0; i < 10; ++i) CHECK_EQ(gathered[i], right * 100000L + 5 * i);

  /* non-blocking: valid after quiet */
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) lget[i] = 0;
  shmem_long_get_nbi(lget, lsrc, N, left);
  shmem_long_put_nbi(ldst, lsrc, N, right);
  shmem_quiet();
  CHECK_EQ(lget[N - 1], left * 100000L + N - 1);
  shmem_barrier_all();
  CHECK_EQ(ldst[N - 1], left * 100000L + N - 1);

  /* contexts: the ctx forms, and a private context of its own */
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
  shmem_barrier_all();
  shmem_put(ctx, ldst, lsrc, 5, left);
  shmem_ctx_int_p(ctx, shift, 1000 + me, left);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  CHECK_EQ(ldst[4], right * 100000L + 4);
  CHECK_EQ(*shift, 1000 + right);
  CHECK_EQ(shmem_ctx_long_g(ctx, &lsrc[3], right), right * 100000L + 3);
  CHECK_EQ(shmem_g(SHMEM_CTX_DEFAULT, &lsrc[3], left), left * 100000L + 3);
  shmem_ctx_destroy(ctx);

  shmem_barrier_all();
  shmem_free(bdst); shmem_free(bsrc); shmem_free(sp); shmem_free(ddst); shmem_free(dsrc);
  shmem_free(ldst); shmem_free(lsrc); shmem_free(shift);
  if (me == 0) printf("rma: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
