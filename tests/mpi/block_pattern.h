/* The byte pattern of the block tests (coll_blocks, coll_pull_alone): every byte of a block names
 * its sender, receiver, round and position, so a byte from the wrong block, round or place shows. */
#ifndef GASKET_TESTS_MPI_BLOCK_PATTERN_H_
#define GASKET_TESTS_MPI_BLOCK_PATTERN_H_

#include <stdint.h>
#include <stdio.h>

#include "check.h"

/* The byte at position i of the block `sender` sends `receiver` in round `round`. */
static unsigned char value_of(int sender, int receiver, int round, int64_t i) {
  return (unsigned char)(sender * 31 + receiver * 7 + round * 13 + i * 5 + (i >> 8) + 1);
}

static void fill(unsigned char* p, int sender, int receiver, int round, int64_t bytes) {
  for (int64_t i = 0; i < bytes; ++i) p[i] = value_of(sender, receiver, round, i);
}

static void expect(const unsigned char* p, int sender, int receiver, int round, int64_t bytes, const char* what) {
  for (int64_t i = 0; i < bytes; ++i) {
    if (p[i] != value_of(sender, receiver, round, i)) {
      fprintf(stderr, "%s: round %d, block from %d to %d, %lld bytes: byte %lld is %d, expected %d\n", what, round,
              sender, receiver, (long long)bytes, (long long)i, p[i], value_of(sender, receiver, round, i));
      CHECK(0);
    }
  }
}

#endif /* GASKET_TESTS_MPI_BLOCK_PATTERN_H_ */
