/* Non-blocking calls are local: while rank 0 sleeps without calling MPI, every other rank issues
 * kCalls small non-blocking sends of every mode to it (MPI_Isend, MPI_Ibsend, MPI_Issend,
 * MPI_Start of persistent sends, MPI_Isendrecv) and kCalls non-blocking gathers rooted at it.
 * Each sender counts the calls it has returned from in a file every rank maps; rank 0 stays
 * asleep until every call has returned (or a bound far beyond the time they need), and then
 * checks that all of them returned before it woke. A call that waits for the receiver (a channel
 * out of credit) cannot return before that, so the count stays short. Then every message is
 * received in order, every byte checked, and every request completed. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

enum { kCalls = 1000, kMaxBytes = 400, kModes = 5, kGatherTag = kModes };
enum { kIsend, kIbsend, kIssend, kPersistent, kIsendrecv };
static const char* const kModeNames[kModes] = {"MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Start", "MPI_Isendrecv"};
/* Rank 0 waits at most this long for the senders' calls (they need milliseconds). */
static const double kWakeBoundSeconds = 20.0;

static int message_bytes(int k) { return 1 + (k * 37) % kMaxBytes; }
/* Message k of mode m carries pattern index m * kCalls + k. */
static int pattern(int mode, int k) { return mode * kCalls + k; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A counter per rank in a file every rank of this machine maps: the calls it has returned from. */
static _Atomic long* map_counters(int rank, int size) {
  char path[256] = {0};
  if (rank == 0) {
    const char* dir = getenv("TEST_TMPDIR");
    snprintf(path, sizeof path, "%s/late_receiver.XXXXXX", dir != NULL ? dir : "/tmp");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(ftruncate(fd, (off_t)(sizeof(long) * (size_t)size)), 0);
    close(fd);
  }
  MPI_OK(MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0);
  void* p = mmap(NULL, sizeof(long) * (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(p != MAP_FAILED);
  close(fd);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) unlink(path);
  return (_Atomic long*)p;
}

static void sender(int rank, _Atomic long* returned) {
  const int total = kModes * kCalls + kCalls;
  unsigned char* out = malloc((size_t)kModes * kCalls * kMaxBytes);
  unsigned char* back = calloc((size_t)kCalls, kMaxBytes);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)total);
  int bsize = kCalls * (kMaxBytes + MPI_BSEND_OVERHEAD);
  void* bbuf = malloc((size_t)bsize);
  MPI_OK(MPI_Buffer_attach(bbuf, bsize));
  int* gathered = malloc(sizeof(int) * kCalls);

  int n = 0;
  for (int mode = 0; mode < kModes; ++mode) {
    for (int k = 0; k < kCalls; ++k) {
      unsigned char* b = out + (size_t)pattern(mode, k) * kMaxBytes;
      int len = message_bytes(k);
      fill_message(b, len, rank, pattern(mode, k));
      MPI_Request* r = &reqs[n++];
      switch (mode) {
        case kIsend: MPI_OK(MPI_Isend(b, len, MPI_BYTE, 0, mode, MPI_COMM_WORLD, r)); break;
        case kIbsend: MPI_OK(MPI_Ibsend(b, len, MPI_BYTE, 0, mode, MPI_COMM_WORLD, r)); break;
        case kIssend: MPI_OK(MPI_Issend(b, len, MPI_BYTE, 0, mode, MPI_COMM_WORLD, r)); break;
        case kPersistent:
          MPI_OK(MPI_Send_init(b, len, MPI_BYTE, 0, mode, MPI_COMM_WORLD, r));
          MPI_OK(MPI_Start(r));
          break;
        case kIsendrecv:
          MPI_OK(MPI_Isendrecv(b, len, MPI_BYTE, 0, mode, back + (size_t)k * kMaxBytes, kMaxBytes, MPI_BYTE, 0, mode,
                               MPI_COMM_WORLD, r));
          break;
      }
      atomic_store(&returned[rank], atomic_load(&returned[rank]) + 1);
    }
  }
  for (int k = 0; k < kCalls; ++k) {
    gathered[k] = rank * kCalls + k;
    MPI_OK(MPI_Igather(&gathered[k], 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &reqs[n++]));
    atomic_store(&returned[rank], atomic_load(&returned[rank]) + 1);
  }
  CHECK_EQ(n, total);
  MPI_Status* st = malloc(sizeof(MPI_Status) * (size_t)total);
  MPI_OK(MPI_Waitall(total, reqs, st));
  for (int k = 0; k < kCalls; ++k) {
    int cnt = -1;
    MPI_OK(MPI_Get_count(&st[kIsendrecv * kCalls + k], MPI_BYTE, &cnt));
    CHECK_EQ(cnt, message_bytes(k));
    check_message(back + (size_t)k * kMaxBytes, cnt, 0, k);
  }
  for (int k = 0; k < kCalls; ++k) MPI_OK(MPI_Request_free(&reqs[kPersistent * kCalls + k]));
  int detached_size = 0;
  void* detached = NULL;
  MPI_OK(MPI_Buffer_detach(&detached, &detached_size));
  CHECK_EQ(detached_size, bsize);
  free(bbuf);
  free(st);
  free(gathered);
  free(reqs);
  free(back);
  free(out);
}

static void late_receiver(int size, _Atomic long* returned) {
  const long per_sender = kModes * kCalls + kCalls;
  double start = now();
  long sum = 0;
  for (;;) {
    sum = 0;
    for (int r = 1; r < size; ++r) sum += atomic_load(&returned[r]);
    if (sum == per_sender * (size - 1) || now() - start > kWakeBoundSeconds) break;
    usleep(10000);
  }
  /* Every call of every sender returned while this rank made no MPI call. */
  for (int r = 1; r < size; ++r) {
    long got = atomic_load(&returned[r]);
    if (got != per_sender) {
      fprintf(stderr, "rank 0: rank %d returned from %ld of its %ld non-blocking calls before the receiver woke\n",
              r, got, per_sender);
    }
    CHECK_EQ(got, per_sender);
  }

  unsigned char buf[kMaxBytes];
  for (int r = 1; r < size; ++r) {
    for (int mode = 0; mode < kModes; ++mode) {
      for (int k = 0; k < kCalls; ++k) {
        MPI_Status st;
        memset(buf, 0, sizeof buf);
        MPI_OK(MPI_Recv(buf, kMaxBytes, MPI_BYTE, r, mode, MPI_COMM_WORLD, &st));
        int cnt = -1;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
        if (cnt != message_bytes(k)) fprintf(stderr, "rank 0: %s message %d from rank %d\n", kModeNames[mode], k, r);
        CHECK_EQ(cnt, message_bytes(k));
        CHECK_EQ(st.MPI_SOURCE, r);
        CHECK_EQ(st.MPI_TAG, mode);
        check_message(buf, cnt, r, pattern(mode, k));
        if (mode == kIsendrecv) {
          fill_message(buf, cnt, 0, k);
          MPI_OK(MPI_Send(buf, cnt, MPI_BYTE, r, mode, MPI_COMM_WORLD));
        }
      }
    }
  }
  int* all = malloc(sizeof(int) * (size_t)size * kCalls);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * kCalls);
  int mine = -1;
  for (int k = 0; k < kCalls; ++k) {
    MPI_OK(MPI_Igather(&mine, 1, MPI_INT, all + (size_t)k * size, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[k]));
  }
  MPI_OK(MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE));
  for (int k = 0; k < kCalls; ++k) {
    CHECK_EQ(all[(size_t)k * size], -1);
    for (int r = 1; r < size; ++r) CHECK_EQ(all[(size_t)k * size + r], r * kCalls + k);
  }
  free(reqs);
  free(all);
}

int main(int argc, char** argv) {
  int rank, size, level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  CHECK(size >= 2);
  _Atomic long* returned = map_counters(rank, size);
  if (rank == 0) {
    late_receiver(size, returned);
  } else {
    sender(rank, returned);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  munmap((void*)returned, sizeof(long) * (size_t)size);
  if (rank == 0) printf("late_receiver: %d ranks, %d calls of each kind per sender returned before the receiver woke\n", size, kCalls);
  MPI_OK(MPI_Finalize());
  return 0;
}
