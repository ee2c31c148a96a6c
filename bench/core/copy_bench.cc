// Copy routines for large same-node transfers, measured the way shmem_bench's put row uses them:
// one source buffer reused, the destination a shared-memory file mapping (like a peer's heap), a
// full fence after each copy (the quiet). Prints, per size, the median time of one copy (us) over
// SAMPLES samples, the routines alternating sample by sample so machine load hits them alike.
//   copy_bench [max_bytes [samples]]
// Routines: glibc memcpy whole; glibc memcpy in pieces of 8/16/64 KiB (Open MPI's OpenSHMEM over
// UCX copies large puts in ~8 KiB pieces); `rep movsb` whole; an AVX2 loop with ordinary and with
// non-temporal stores. The direct path's put is the glibc memcpy (core/rma.cc).
#include <immintrin.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/common/bench_clock.h"

namespace {

void glibc_whole(char* d, const char* s, size_t n) { std::memcpy(d, s, n); }

template <size_t kPiece>
void glibc_pieces(char* d, const char* s, size_t n) {
  for (size_t off = 0; off < n; off += kPiece) std::memcpy(d + off, s + off, std::min(kPiece, n - off));
}

void rep_movsb(char* d, const char* s, size_t n) {
  asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

template <bool kStream>
__attribute__((target("avx2"))) inline void store32(char* to, __m256i v) {
  if (kStream) _mm256_stream_si256(reinterpret_cast<__m256i*>(to), v);
  else _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), v);
}

// 128 bytes per iteration with ordinary or non-temporal stores (these need a 32-byte aligned
// destination: the head up to it and the tail by memcpy).
template <bool kStream>
__attribute__((target("avx2"))) void avx2_loop(char* d, const char* s, size_t n) {
  size_t i = kStream ? (32 - (reinterpret_cast<uintptr_t>(d) & 31)) & 31 : 0;
  std::memcpy(d, s, i);
  for (; i + 128 <= n; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
    store32<kStream>(d + i, a);
    store32<kStream>(d + i + 32, b);
    store32<kStream>(d + i + 64, c);
    store32<kStream>(d + i + 96, e);
  }
  if (kStream) _mm_sfence();
  std::memcpy(d + i, s + i, n - i);
}

struct Routine {
  const char* name;
  void (*run)(char*, const char*, size_t);
};

const Routine kRoutines[] = {
    {"memcpy", glibc_whole},          {"memcpy/8K", glibc_pieces<8192>},  {"memcpy/16K", glibc_pieces<16384>},
    {"memcpy/64K", glibc_pieces<65536>}, {"rep_movsb", rep_movsb},       {"avx2", avx2_loop<false>},
    {"avx2_nt", avx2_loop<true>},
};
constexpr int kNumRoutines = sizeof(kRoutines) / sizeof(kRoutines[0]);

// A shared-memory file mapping of `bytes`, touched once (a peer's heap is touched before use).
char* shared_mapping(size_t bytes) {
  int fd = memfd_create("copy_bench", 0);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    std::perror("copy_bench: memfd");
    std::exit(1);
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    std::perror("copy_bench: mmap");
    std::exit(1);
  }
  std::memset(p, 0, bytes);
  return static_cast<char*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t max_bytes = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : (4u << 20);
  const int samples = argc > 2 ? std::atoi(argv[2]) : 15;
  // Byte offsets of the destination and the source from a page boundary (Open MPI's OpenSHMEM
  // heap blocks sit at 0xd0 and 0xd8, gasket's on page boundaries).
  const size_t dst_offset = argc > 3 ? std::strtoul(argv[3], nullptr, 0) : 0;
  const size_t src_offset = argc > 4 ? std::strtoul(argv[4], nullptr, 0) : 0;
  constexpr int kCopiesPerSample = 10;  // shmem_bench's put row: 10 puts per sample from 128 KiB
  char* dst = shared_mapping(max_bytes + 4096) + dst_offset;
  char* src = shared_mapping(max_bytes + 4096) + src_offset;
  std::memset(src, 1, max_bytes);
  std::printf("# one copy into a shared mapping + fence, us (median of %d samples of %d copies), destination at "
              "page offset %zu, source at %zu\n", samples, kCopiesPerSample, dst_offset, src_offset);
  std::printf("%10s", "bytes");
  for (const Routine& r : kRoutines) std::printf(" %11s", r.name);
  std::printf("\n");
  for (size_t bytes = 256 << 10; bytes <= max_bytes; bytes *= 2) {
    std::vector<std::vector<double>> times(kNumRoutines);
    for (int s = 0; s < samples; ++s) {
      for (int k = 0; k < kNumRoutines; ++k) {
        const Routine& r = kRoutines[(k + s) % kNumRoutines];  // rotate the order
        r.run(dst, src, bytes);  // untimed: the caches as the routine's own put stream leaves them
        double t0 = bench_now_us();
        for (int i = 0; i < kCopiesPerSample; ++i) {
          r.run(dst, src, bytes);
          std::atomic_thread_fence(std::memory_order_seq_cst);
        }
        times[static_cast<size_t>((k + s) % kNumRoutines)].push_back((bench_now_us() - t0) / kCopiesPerSample);
      }
    }
    std::printf("%10zu", bytes);
    for (int k = 0; k < kNumRoutines; ++k) {
      std::vector<double>& t = times[static_cast<size_t>(k)];
      std::nth_element(t.begin(), t.begin() + samples / 2, t.end());
      std::printf(" %11.2f", t[static_cast<size_t>(samples / 2)]);
    }
    std::printf("\n");
    // Check: the bytes arrived (the last routine's copy).
    if (std::memcmp(dst, src, bytes) != 0) {
      std::fprintf(stderr, "copy_bench: %zu bytes differ after the copies\n", bytes);
      return 1;
    }
  }
  return 0;
}
