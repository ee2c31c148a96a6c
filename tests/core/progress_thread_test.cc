// GASKET_PROGRESS_THREAD serves PEs that compute without calling the library: PE 0 reads and
// updates every other PE's memory (emulated get and atomics on write-only backends need the
// target's handler to run) while those PEs spin in plain user code, never entering gasket, until
// the flag PE 0 sets last arrives. Without a working progress thread they would never see it; a
// deadline turns that into a failure with a message instead of a hang.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/gasket.h"

using namespace gasket;

int main() {
  setenv("GASKET_PROGRESS_THREAD", "yes", 1);  // this test is about the thread
  if (!init().is_ok()) return 2;
  const int me = my_pe(), n = n_pes();
  const size_t kWords = 4096;
  auto* data = static_cast<long*>(sym_malloc(kWords * sizeof(long)));
  auto* counter = static_cast<long*>(sym_calloc(1, sizeof(long)));
  auto* flag = static_cast<long*>(sym_calloc(1, sizeof(long)));
  for (size_t i = 0; i < kWords; ++i) data[i] = me * 100000L + static_cast<long>(i);
  barrier_all();
  int status = 0;
  if (me == 0) {
    std::vector<long> buf(kWords);
    for (int pe = 1; pe < n; ++pe) {
      get(buf.data(), data, kWords * sizeof(long), pe);
      for (size_t i = 0; i < kWords; ++i) {
        if (buf[i] != pe * 100000L + static_cast<long>(i)) {
          std::fprintf(stderr, "PE 0: word %zu read from PE %d is %ld\n", i, pe, buf[i]);
          status = 1;
          break;
        }
      }
      for (int k = 0; k < 10; ++k) atomic_fetch_add(counter, 1L, pe);
      atomic_set(flag, 1L, pe);
    }
  } else {
    // Compute without calling gasket: only the progress thread can serve PE 0's requests.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    volatile double work = 0;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
      for (int i = 0; i < 1000; ++i) work = work + 1.0;
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "PE %d: PE 0's flag never arrived while this PE computed: the "
                             "progress thread did not serve its requests\n", me);
        abort_job(1, "progress thread test failed");
      }
    }
    if (*counter != 10) {
      std::fprintf(stderr, "PE %d: counter is %ld, expected 10\n", me, *counter);
      status = 1;
    }
  }
  barrier_all();
  sym_free(flag);
  sym_free(counter);
  sym_free(data);
  if (!finalize().is_ok()) status = 1;
  if (me == 0 && status == 0) std::printf("progress thread served %d computing PEs\n", n - 1);
  return status;
}
