// One misuse per mode (argv[1]), committed by the last PE while the others wait in a barrier.
// The test runner checks that the job ends non-zero with a message naming the PE, the call and
// the value — never a hang, never silent corruption.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/gasket.h"

using namespace gasket;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bad_input MODE\n");
    return 2;
  }
  std::string mode = argv[1];
  if (!init().is_ok()) return 2;
  const int me = my_pe(), n = n_pes(), culprit = n - 1;
  auto* heap = static_cast<int64_t*>(sym_malloc(1024));
  long local = 0;
  if (mode == "mismatched_alloc") {
    // The culprit asks for a different size: caught by the allocation check.
    void* p = sym_malloc(me == culprit ? 4096 : 2048);
    (void)p;
  } else if (me == culprit) {
    if (mode == "pe_out_of_range") put(heap, &local, sizeof local, n);
    if (mode == "negative_pe") atomic_add(heap, int64_t{1}, -1);
    if (mode == "outside_segment") put(&local, &local, sizeof local, 0);
    if (mode == "past_end") {
      char* end = static_cast<char*>(static_cast<void*>(heap)) + sym_heap_size() - 8;
      char buf[64] = {};
      put(end, buf, sizeof buf, 0);
    }
    if (mode == "size_overflow") get(&local, heap + 1, SIZE_MAX - 4, 0);
    if (mode == "misaligned_atomic") {
      auto* odd = reinterpret_cast<int64_t*>(reinterpret_cast<char*>(heap) + 3);
      atomic_fetch_add(odd, int64_t{1}, 0);
    }
    if (mode == "zero_size_atomic") atomic(heap, 0, AtomicOp::kFetchAdd, 1, 0, 0);
    if (mode == "abort") abort_job(3, "the test asked for an abort");
    std::fprintf(stderr, "bad_input: mode %s did not stop the job\n", mode.c_str());
    return 0;
  }
  barrier_all();
  (void)finalize();
  return 0;
}
