/* Strided and blocked RMA at the sizes where the transfer changes shape: counts that fill the
 * emulated get's request (half of the 64 KiB bounce zone) exactly, by one block more and over
 * several requests; blocks that do not divide it, fill it, or exceed it and the whole zone;
 * adjacent and overlapping source blocks; 1- to 16-byte elements; into symmetric and private
 * memory. Each PE gets from its left neighbour and puts to its right one; every byte of the
 * destination (blocks and gaps) is compared with the result computed locally from the source
 * pattern. Written for the pipelined blocked get (one round trip per block before), then
 * extended for the packed blocked put over pciddc tcp (a frame per block before): block counts at
 * its threshold, blocks of half a zone and one byte under, 1 MiB of 8-byte elements, odd offsets
 * on both sides, and every PE putting interleaved blocks into PE 0 at once (each sender's blocks
 * land in its own zone there before PE 0 scatters them). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kBytes = 3 << 20, kGap = 0xEE };

static int me, npes, left, right;
static unsigned char *sym_src, *sym_dst, *priv_src, *priv_dst, *expected;

/* Byte k of `pe`'s source. */
static unsigned char source_byte(int pe, size_t k) { return (unsigned char)((k * 131u + (k >> 9) + pe * 29u + 1) % 251u); }

struct Shape {
  size_t elem, bsize, nblocks;
  ptrdiff_t dst, sst;
  const char* what;
  size_t dshift, sshift; /* bytes from the start of the destination and source buffers */
};

static const struct Shape kShapes[] = {
    {1, 1, 32769, 2, 3, "1-byte elements, half a zone plus one"},
    {8, 1, 4096, 2, 2, "iget64: exactly half a zone"},
    {8, 1, 4097, 3, 2, "iget64: half a zone plus one"},
    {8, 1, 12289, 1, 5, "iget64: three requests and one, contiguous destination"},
    {8, 8, 16384, 16, 16, "shmem_bench's ibget: 64-byte blocks, every other one, 1 MiB"},
    {4, 3, 10000, 5, 7, "12-byte blocks (not a divisor of the zone)"},
    {8, 5, 5000, 7, 5, "adjacent source blocks"},
    {2, 4, 9000, 4, 2, "overlapping source blocks"},
    {16, 1, 2049, 1, 1, "16-byte elements, contiguous both sides"},
    {8, 4096, 3, 4097, 4100, "blocks of exactly half a zone"},
    {8, 4097, 3, 4097, 4100, "blocks larger than half a zone"},
    {1, 65537, 2, 70000, 65537, "blocks larger than the whole zone"},
    {4, 1, 1, 1, 1, "one element"},
    {1, 1, 3, 2, 3, "three elements: a put each (below the packed put's threshold)"},
    {1, 1, 4, 2, 3, "four elements: one packed put"},
    {8, 4096, 9, 4097, 4100, "nine blocks of exactly half a zone: a request each"},
    {1, 32767, 9, 32768, 32769, "nine blocks one byte under half a zone"},
    {8, 1, 131072, 2, 2, "1 MiB of 8-byte elements, every other one"},
    {1, 3, 30001, 5, 4, "odd offsets on both sides", 3, 5},
    {1, 1, 40000, 1, 3, "odd offsets, contiguous destination", 7, 1},
    {4, 5, 3000, 6, 5, "4-byte elements at offsets that are not 8-aligned", 4, 12},
    {2, 1, 20000, 3, 1, "contiguous source at an odd 2-byte offset", 6, 2},
};

/* What `dst` holds after the transfer of shape `s` from `pe`'s source (gaps keep kGap). */
static size_t expect(const struct Shape* s, int pe) {
  size_t len = s->dshift + ((s->nblocks - 1) * (size_t)s->dst + s->bsize) * s->elem;
  memset(expected, kGap, len);
  for (size_t b = 0; b < s->nblocks; ++b) {
    for (size_t k = 0; k < s->bsize * s->elem; ++k) {
      expected[s->dshift + b * (size_t)s->dst * s->elem + k] = source_byte(pe, s->sshift + b * (size_t)s->sst * s->elem + k);
    }
  }
  return len;
}

static void transfer(int is_put, const struct Shape* s, void* dst, const void* src) {
  int blocked = s->bsize != 1;
#define SIZED(B)                                                                                   \
  if (s->elem == B / 8) {                                                                          \
    if (is_put && blocked) shmem_ibput##B(dst, src, s->dst, s->sst, s->bsize, s->nblocks, right);  \
    else if (is_put) shmem_iput##B(dst, src, s->dst, s->sst, s->nblocks, right);                   \
    else if (blocked) shmem_ibget##B(dst, src, s->dst, s->sst, s->bsize, s->nblocks, left);        \
    else shmem_iget##B(dst, src, s->dst, s->sst, s->nblocks, left);                                \
  }
  SHMEM_GASKET_SIZES(SIZED)
#undef SIZED
}

static void round_trip(int is_put, int private_side, const struct Shape* s) {
  size_t src_len = s->sshift + ((s->nblocks - 1) * (size_t)s->sst + s->bsize) * s->elem;
  size_t len = expect(s, left); /* get: from left; put: left filled mine */
  CHECK(src_len <= kBytes && len <= kBytes, "shape '%s' outgrows the buffers", s->what);
  for (size_t k = 0; k < src_len; ++k) sym_src[k] = priv_src[k] = source_byte(me, k);
  memset(sym_dst, kGap, len + 1);
  memset(priv_dst, kGap, len + 1);
  shmem_barrier_all();
  if (is_put) transfer(1, s, sym_dst + s->dshift, (private_side ? priv_src : sym_src) + s->sshift);
  else transfer(0, s, (private_side ? priv_dst : sym_dst) + s->dshift, sym_src + s->sshift);
  shmem_barrier_all(); /* completes the puts */
  const unsigned char* got = !is_put && private_side ? priv_dst : sym_dst;
  for (size_t k = 0; k < len; ++k) {
    if (got[k] != expected[k]) {
      CHECK(0, "%s (%s, %s memory) elem %zu bsize %zu nblocks %zu dst %td sst %td: byte %zu (block %zu) is %d, expected %d",
            is_put ? "put" : "get", s->what, private_side ? "private" : "symmetric", s->elem, s->bsize, s->nblocks,
            s->dst, s->sst, k, k / ((size_t)s->dst * s->elem), got[k], expected[k]);
    }
  }
  CHECK(got[len] == kGap, "%s (%s): the byte after the last block was written", is_put ? "put" : "get", s->what);
  shmem_barrier_all(); /* nobody refills before its neighbour has compared */
}

/* Every PE but 0 puts `nblocks` blocks of `bsize` bytes into PE 0 at once, interleaved: block b of
 * sender q (1..npes-1) at byte (b * senders + q - 1) * bsize, from a source strided by bsize + 1. */
static void converging_puts(size_t bsize, size_t nblocks) {
  const size_t senders = (size_t)npes - 1, sst = bsize + 1, len = nblocks * senders * bsize;
  CHECK(len < kBytes && (nblocks - 1) * sst + bsize <= kBytes, "converging puts of %zu blocks outgrow the buffers", nblocks);
  for (size_t k = 0; k < (nblocks - 1) * sst + bsize; ++k) sym_src[k] = source_byte(me, k);
  memset(sym_dst, kGap, len + 1);
  shmem_barrier_all();
  if (me != 0) shmem_ibput8(sym_dst + (size_t)(me - 1) * bsize, sym_src, senders * bsize, sst, bsize, nblocks, 0);
  shmem_barrier_all();
  for (size_t k = 0; me == 0 && k < len; ++k) {
    size_t b = k / (senders * bsize), q = k / bsize % senders, i = k % bsize;
    int want = source_byte((int)q + 1, b * sst + i);
    CHECK(sym_dst[k] == want, "converging puts of %zu blocks of %zu bytes: byte %zu (block %zu of PE %zu) is %d, expected %d",
          nblocks, bsize, k, b, q + 1, sym_dst[k], want);
  }
  CHECK(me != 0 || sym_dst[len] == kGap, "converging puts: the byte after the last block was written");
  shmem_barrier_all();
}

int main(void) {
  init_ring(&me, &npes, &left, &right);
  sym_src = shmem_malloc(kBytes + 1);
  sym_dst = shmem_malloc(kBytes + 1);
  priv_src = malloc(kBytes + 1);
  priv_dst = malloc(kBytes + 1);
  expected = malloc(kBytes + 1);
  CHECK(sym_src && sym_dst && priv_src && priv_dst && expected, "allocating %d bytes failed", kBytes);
  for (size_t i = 0; i < sizeof kShapes / sizeof kShapes[0]; ++i) {
    for (int is_put = 0; is_put <= 1; ++is_put) {
      for (int private_side = 0; private_side <= 1; ++private_side) round_trip(is_put, private_side, &kShapes[i]);
    }
  }
  converging_puts(24, 5000); /* four requests per sender */
  converging_puts(1, 4);     /* one request of the smallest packed put */
  free(expected);
  free(priv_dst);
  free(priv_src);
  shmem_free(sym_dst);
  shmem_free(sym_src);
  if (me == 0) printf("strided_boundaries: %d PEs ok\n", npes);
  shmem_finalize();
  return 0;
}
