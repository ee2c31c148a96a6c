/* MPI_THREAD_MULTIPLE: kThreads threads per rank ping-pong with the same thread of the partner
 * rank at once (tag = thread), eager and rendezvous sizes, checking every byte; then threads
 * share ANY_SOURCE receives (mprobe/mrecv) and every message is received exactly once.
 * With an argument SINGLE / FUNNELED / SERIALIZED, checks that level is provided as asked. */
#include <pthread.h>
#include <string.h>

#include "check.h"

enum { kThreads = 4, kIters = 200 };
static int g_rank, g_size;

static void* pingpong(void* arg) {
  int t = (int)(long)arg;
  int partner = g_rank ^ 1;
  static const int sizes[] = {8, 3000, 40000};
  unsigned char* b = malloc(40000);
  for (int it = 0; it < kIters; ++it) {
    int n = sizes[(it + t) % 3];
    if (g_rank % 2 == 0) {
      for (int i = 0; i < n; ++i) b[i] = (unsigned char)(t * 17 + it + i);
      MPI_OK(MPI_Send(b, n, MPI_BYTE, partner, t, MPI_COMM_WORLD));
      MPI_Status st;
      MPI_OK(MPI_Recv(b, 40000, MPI_BYTE, partner, t, MPI_COMM_WORLD, &st));
      CHECK_EQ(st.MPI_TAG, t);
      for (int i = 0; i < n; ++i) CHECK_EQ(b[i], (unsigned char)(t * 17 + it + i + 1));
    } else {
      MPI_Status st;
      MPI_OK(MPI_Recv(b, 40000, MPI_BYTE, partner, t, MPI_COMM_WORLD, &st));
      int got;
      MPI_Get_count(&st, MPI_BYTE, &got);
      CHECK_EQ(got, n);
      for (int i = 0; i < n; ++i) {
        CHECK_EQ(b[i], (unsigned char)(t * 17 + it + i));
        b[i]++;
      }
      MPI_Request r;
      MPI_OK(MPI_Isend(b, n, MPI_BYTE, partner, t, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
  }
  free(b);
  return NULL;
}

static long g_sum[kThreads];
static void* drain(void* arg) {
  int t = (int)(long)arg;
  int per_thread = (g_size - 1) * kIters / kThreads;
  for (int k = 0; k < per_thread; ++k) {
    MPI_Message m;
    MPI_Status st;
    MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &m, &st));
    int v[2];
    MPI_OK(MPI_Mrecv(v, 2, MPI_INT, &m, &st));
    CHECK_EQ(v[0], st.MPI_SOURCE);
    g_sum[t] += v[1];
  }
  return NULL;
}

int main(int argc, char** argv) {
  int want = MPI_THREAD_MULTIPLE, provided = -1;
  if (argc > 1) want = strcmp(argv[1], "SINGLE") == 0 ? MPI_THREAD_SINGLE
                       : strcmp(argv[1], "FUNNELED") == 0 ? MPI_THREAD_FUNNELED
                                                          : MPI_THREAD_SERIALIZED;
  MPI_OK(MPI_Init_thread(&argc, &argv, want, &provided));
  CHECK_EQ(provided, want);
  int q;
  MPI_OK(MPI_Query_thread(&q));
  CHECK_EQ(q, want);
  int main_flag = 0;
  MPI_OK(MPI_Is_thread_main(&main_flag));
  CHECK_EQ(main_flag, 1);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (want != MPI_THREAD_MULTIPLE) {
    int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size, v = g_rank, w = -1;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 0, &w, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(w, left);
    MPI_OK(MPI_Finalize());
    if (g_rank == 0) printf("threads: level %s ok on %d ranks\n", argv[1], g_size);
    return 0;
  }
  pthread_t th[kThreads];
  if ((g_rank ^ 1) < g_size) {
    for (long t = 0; t < kThreads; ++t) pthread_create(&th[t], NULL, pingpong, (void*)t);
    for (int t = 0; t < kThreads; ++t) pthread_join(th[t], NULL);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (g_rank == 0) {
    for (long t = 0; t < kThreads; ++t) pthread_create(&th[t], NULL, drain, (void*)t);
    for (int t = 0; t < kThreads; ++t) pthread_join(th[t], NULL);
    long total = 0;
    for (int t = 0; t < kThreads; ++t) total += g_sum[t];
    long expect = 0;
    for (int s = 1; s < g_size; ++s)
      for (int i = 0; i < kIters; ++i) expect += s * 1000 + i;
    CHECK_EQ(total, expect);
  } else {
    for (int i = 0; i < kIters; ++i) {
      int v[2] = {g_rank, g_rank * 1000 + i};
      MPI_OK(MPI_Send(v, 2, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
  }
  /* Thread that is not the main thread. */
  MPI_OK(MPI_Finalize());
  if (g_rank == 0) printf("threads: MPI_THREAD_MULTIPLE ok on %d ranks\n", g_size);
  return 0;
}
