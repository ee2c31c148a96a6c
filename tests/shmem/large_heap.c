/* With the default heap (no GASKET_HEAP_SIZE / SHMEM_SYMMETRIC_SIZE set) a
 * 200 MiB shmem_malloc succeeds on every PE and every byte range of it is reachable by a peer;
 * the block freed, a 200 MiB shmem_calloc reads zeros where the old block was written (its pages
 * went back to the system or were cleared); a request no heap can hold returns NULL on every PE. */
#include <stdint.h>
#include <string.h>

#include "check.h"

#define kBlockBytes ((size_t)200 << 20)
#define kStrideBytes ((size_t)4 << 20) /* one probe every 4 MiB, and one ending the block */
#define kProbeBytes ((size_t)4096 + 24) /* crosses a page boundary when the probe is not aligned */

static size_t probe_offset(size_t i) {
  size_t at = i * kStrideBytes + (i % 3) * 1000;
  return at + kProbeBytes <= kBlockBytes ? at : kBlockBytes - kProbeBytes;
}

static unsigned char pattern(int pe, size_t i, size_t k) { return (unsigned char)(pe * 31 + i * 7 + k + 1); }

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t probes = kBlockBytes / kStrideBytes + 1;
  static unsigned char probe[kProbeBytes];

  unsigned char* block = shmem_malloc(kBlockBytes);
  CHECK(block != NULL, "shmem_malloc(%zu) with the default heap", kBlockBytes);
  for (size_t i = 0; i < probes; ++i) {
    for (size_t k = 0; k < kProbeBytes; ++k) probe[k] = pattern(me, i, k);
    shmem_putmem(block + probe_offset(i), probe, kProbeBytes, right);
  }
  shmem_barrier_all();
  for (size_t i = 0; i < probes; ++i) {
    const unsigned char* got = block + probe_offset(i);
    for (size_t k = 0; k < kProbeBytes; ++k) {
      CHECK(got[k] == pattern(left, i, k), "probe %zu byte %zu at offset %zu: %u, PE %d wrote %u", i, k,
            probe_offset(i), got[k], left, pattern(left, i, k));
    }
  }
  /* Read back from the peer too: its copy holds what this PE wrote. */
  for (size_t i = 0; i < probes; i += 7) {
    shmem_getmem(probe, block + probe_offset(i), kProbeBytes, right);
    CHECK(probe[0] == pattern(me, i, 0) && probe[kProbeBytes - 1] == pattern(me, i, kProbeBytes - 1),
          "get of probe %zu from PE %d: %u..%u", i, right, probe[0], probe[kProbeBytes - 1]);
  }
  shmem_barrier_all();
  shmem_free(block);

  unsigned char* zeroed = shmem_calloc(kBlockBytes / 8, 8);
  CHECK(zeroed != NULL, "shmem_calloc of %zu bytes after the free", kBlockBytes);
  for (size_t i = 0; i < probes; ++i) {
    const unsigned char* got = zeroed + probe_offset(i);
    for (size_t k = 0; k < kProbeBytes; ++k) CHECK(got[k] == 0, "calloc'd byte %zu is %u", probe_offset(i) + k, got[k]);
  }
  long* last = (long*)(zeroed + kBlockBytes - sizeof(long));
  shmem_barrier_all(); /* every PE has checked its zeros before a neighbour writes the last word */
  shmem_long_p(last, me + 1000, right);
  shmem_barrier_all();
  CHECK(*last == left + 1000, "last word %ld, PE %d wrote %d", *last, left, left + 1000);
  shmem_free(zeroed);

  /* Beyond any heap: NULL on every PE (and a warning naming the knob), not a crash. */
  CHECK(shmem_malloc((size_t)1 << 50) == NULL, "a 1 PiB shmem_malloc did not fail");
  shmem_finalize();
  return 0;
}
