/* OpenSHMEM 1.6 sessions: shmem_session_start/stop (and shmem_ctx_session_start/stop, which return a result) around a series of puts and atomics on the
 * default and on a created context with each option and the total_ops hint of a
 * shmem_session_config_t (the values arrive as without a session), and the non-zero returns for
 * what cannot start a session. */
#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  long* data = shmem_calloc(64, sizeof(long));
  long* counter = shmem_calloc(1, sizeof(long));
  CHECK(data != NULL && counter != NULL, "shmem_calloc failed");
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
  shmem_barrier_all();

  /* a session of 64 puts and 64 atomics of one kind on each context */
  shmem_session_config_t config = {.total_ops = 128};
  CHECK_EQ(shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_SESSION_SAME_AMO, &config, SHMEM_SESSION_TOTAL_OPS), 0);
  shmem_session_start(ctx, SHMEM_SESSION_SAME_AMO, NULL, 0); /* the 1.6 name */
  CHECK(shmem_ctx_session_start(ctx, 0, NULL, 0) != 0, "shmem_session_start left no session open on ctx");
  for (int i = 0; i < 32; ++i) {
    shmem_long_p(&data[i], me * 1000L + i, right);
    shmem_ctx_long_p(ctx, &data[32 + i], me * 1000L + 32 + i, right);
    shmem_long_atomic_add(counter, 1, 0);
    shmem_ctx_long_atomic_add(ctx, counter, 2, 0);
  }
  shmem_session_stop(ctx);
  shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  for (int i = 0; i < 64; ++i) CHECK_EQ(data[i], left * 1000L + i);
  if (me == 0) CHECK_EQ(*counter, 96L * n);

  /* what cannot start a session */
  CHECK(shmem_ctx_session_start(SHMEM_CTX_INVALID, 0, NULL, 0) != 0, "SHMEM_CTX_INVALID");
  CHECK(shmem_ctx_session_start(ctx, 1L << 20, NULL, 0) != 0, "unknown option");
  CHECK(shmem_ctx_session_start(ctx, 0, &config, 1L << 20) != 0, "unknown config_mask bit");
  CHECK(shmem_ctx_session_start(ctx, 0, NULL, SHMEM_SESSION_TOTAL_OPS) != 0, "total_ops without a config");
  shmem_session_config_t negative = {.total_ops = -5};
  CHECK(shmem_ctx_session_start(ctx, 0, &negative, SHMEM_SESSION_TOTAL_OPS) != 0, "negative total_ops");
  CHECK_EQ(shmem_ctx_session_start(ctx, 0, &negative, 0), 0); /* total_ops ignored without its mask bit */
  CHECK(shmem_ctx_session_start(ctx, 0, NULL, 0) != 0, "a second session on the same context");
  shmem_ctx_session_stop(ctx);
  shmem_ctx_session_stop(ctx);               /* none open: nothing */
  shmem_ctx_session_stop(SHMEM_CTX_INVALID); /* nothing */
  CHECK_EQ(shmem_ctx_session_start(ctx, SHMEM_SESSION_SAME_AMO, &config, SHMEM_SESSION_TOTAL_OPS), 0); /* a new one after stop */
  shmem_ctx_destroy(ctx);                    /* ends it with the context */

  shmem_barrier_all();
  shmem_free(counter);
  shmem_free(data);
  if (me == 0) printf("sessions: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
