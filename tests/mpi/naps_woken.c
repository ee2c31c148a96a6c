/* The core's waiting policy under MPI: with a spin budget of one poll every wait naps at once, and
 * a nap lasts up to a second unless a peer's write rings the doorbell. A same-node ring slot, a
 * credit returned to a sender whose ring is full, a collective's cell flag: if any of them forgot
 * to ring, each wait would cost a second and these hundreds of rounds would run into the test's
 * timeout. Values are checked throughout. (Over a backend with an input signal the nap sleeps in
 * poll(); over ucx, waits yield.)
 * With the argument MULTIPLE (MPI_THREAD_MULTIPLE): the same patterns, the waiters now napping
 * with the lock released, then a thread's MPI_Wait on a generalized request that a second thread
 * completes: no peer writes anything for it, so only the completer's release of the lock rings
 * the sleeper awake (else each round costs the second-long nap, and 400 rounds the test's
 * timeout). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/mpi/check.h"

enum { kRounds = 300, kBurst = 200, kThreadRounds = 400 };

/* Generalized requests: started by the waiting thread, completed by the second one. */
static int query_fn(void* extra, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_INT, *(int*)extra);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int free_fn(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel_fn(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

static MPI_Request pending[kThreadRounds];
static int started = 0;  /* rounds whose request exists (guarded by `lock`) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The second thread: after a pause long enough for the waiter to nap, completes round r's
 * request. (Nothing else may ring in between: a send to the own rank would ring the doorbell.) */
static void* completer(void* arg) {
  (void)arg;
  for (int round = 0; round < kThreadRounds; ++round) {
    for (;;) {
      pthread_mutex_lock(&lock);
      int ready = started > round;
      pthread_mutex_unlock(&lock);
      if (ready) break;
      usleep(50);
    }
    usleep(300);
    MPI_OK(MPI_Grequest_complete(pending[round]));
  }
  return NULL;
}

static void threads_wake_each_other(void) {
  pthread_t other;
  CHECK_EQ(pthread_create(&other, NULL, completer, NULL), 0);
  for (int round = 0; round < kThreadRounds; ++round) {
    int elements = round;
    MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &elements, &pending[round]));
    pthread_mutex_lock(&lock);
    started = round + 1;
    pthread_mutex_unlock(&lock);
    MPI_Status status;
    MPI_OK(MPI_Wait(&pending[round], &status));
    int count = -1;
    MPI_OK(MPI_Get_count(&status, MPI_INT, &count));
    CHECK_EQ(count, round);
  }
  CHECK_EQ(pthread_join(other, NULL), 0);
}

int main(int argc, char** argv) {
  setenv("GASKET_SPIN_COUNT", "1", 1);
  setenv("GASKET_NAP_LIMIT", "1000000", 1);
  int multiple = argc > 1 && strcmp(argv[1], "MULTIPLE") == 0, provided = -1;
  MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  CHECK_EQ(provided, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* A token around the ring: every hop is a wait on a ring slot. */
  for (int round = 1; round <= kRounds; ++round) {
    int token = 0;
    if (rank == 0) {
      token = round;
      MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK_EQ(token, round + size - 1);
    } else {
      MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK_EQ(token, round + rank - 1);
      token += 1;
      MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
  }

  /* Bursts longer than a same-node ring (16 slots): the sender's queue drains as the receiver
   * returns credits; synchronous sends wait on the receiver's acknowledgement. */
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < kBurst; ++i) {
      int v = round * kBurst + i;
      if (rank == 0) {
        for (int dst = 1; dst < size; ++dst) MPI_Send(&v, 1, MPI_INT, dst, 2, MPI_COMM_WORLD);
      } else {
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(got, v);
      }
    }
    int ack = rank;
    if (rank == 0) {
      for (int src = 1; src < size; ++src) {
        MPI_Recv(&ack, 1, MPI_INT, src, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(ack, src);
      }
    } else {
      MPI_Ssend(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
  }

  /* Collectives (same-node cells): every member waits on the others' flags. */
  for (int round = 1; round <= kRounds; ++round) {
    long mine = (long)round * (rank + 1), sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(sum, (long)round * size * (size + 1) / 2);
    int root_value = rank == round % size ? round : -1;
    MPI_Bcast(&root_value, 1, MPI_INT, round % size, MPI_COMM_WORLD);
    CHECK_EQ(root_value, round);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (multiple) threads_wake_each_other();
  MPI_Finalize();
  return 0;
}
