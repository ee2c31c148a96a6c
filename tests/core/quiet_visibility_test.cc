// quiet() means remotely complete: after a put and a quiet, a get by any PE — a third one that
// learns of the put only through a signal of its own — sees the bytes. Each PE in turn writes to
// its right neighbour, quiets, and tells the PE after that (itself at 2 PEs), which gets the
// bytes back from the target. The rounds cover a lone put (over the pciddc tcp link its frame
// asks for the acknowledgement itself), a stream of puts (the quiet sends a flush request after
// the first one's ask), a put of several 64 KiB frames, and puts to two targets before one quiet.
#define BOOST_TEST_MODULE quiet_visibility
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/core/fixture.h"

using namespace gasket;

namespace {
unsigned char pattern(int writer, int round, size_t i) {
  return static_cast<unsigned char>(writer * 29 + round * 13 + i * 7 + (i >> 9));
}

// Bytes of `got` that differ from the writer's pattern: the first such index, or `bytes`.
size_t first_wrong(const std::vector<unsigned char>& got, int writer, int round, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (got[i] != pattern(writer, round, i)) return i;
  }
  return bytes;
}

enum class Shape { kLonePut, kStream, kTwoTargets };

// Runs `rounds` rounds per writer: the writer puts `bytes` to its right neighbour (in the given
// shape), quiets, and raises the reader's signal; the reader gets the bytes from the target and
// raises the writer's, which starts the next round.
void run(Shape shape, size_t bytes, int rounds) {
  const int me = my_pe(), n = n_pes();
  auto* area = static_cast<unsigned char*>(sym_calloc(bytes, 1));
  auto* spare = static_cast<unsigned char*>(sym_calloc(bytes, 1));  // the second target's
  auto* signal = static_cast<int64_t*>(sym_calloc(2, sizeof(int64_t)));  // [0] read me, [1] read done
  BOOST_REQUIRE(area != nullptr && spare != nullptr && signal != nullptr);
  std::vector<unsigned char> src(bytes), got(bytes);
  int64_t step = 0;
  barrier_all();
  for (int writer = 0; writer < n; ++writer) {
    const int target = (writer + 1) % n, reader = (writer + 2) % n;
    for (int round = 0; round < rounds; ++round) {
      ++step;
      if (me == writer) {
        for (size_t i = 0; i < bytes; ++i) src[i] = pattern(writer, round, i);
        switch (shape) {
          case Shape::kLonePut:
            put(area, src.data(), bytes, target);
            break;
          case Shape::kStream:  // the last piece completes the pattern
            for (size_t off = 0; off < bytes; off += 8) put(area + off, src.data() + off, std::min<size_t>(8, bytes - off), target);
            put(area, src.data(), bytes, target);
            break;
          case Shape::kTwoTargets:
            put(area, src.data(), bytes, target);
            put(spare, src.data(), bytes, reader);
            break;
        }
        quiet();
        atomic_set(&signal[0], step, reader);
      }
      if (me == reader) {
        wait_until(&signal[0], Cmp::kEq, step);
        std::memset(got.data(), 0, bytes);
        get(got.data(), area, bytes, target);
        size_t bad = first_wrong(got, writer, round, bytes);
        BOOST_TEST(bad == bytes, "PE " << me << ": " << bytes << " bytes PE " << writer << " put into PE " << target
                                       << " and quieted (round " << round << "): a get sees byte " << bad
                                       << " wrong");
        if (shape == Shape::kTwoTargets) {
          std::memcpy(got.data(), spare, bytes);
          bad = first_wrong(got, writer, round, bytes);
          BOOST_TEST(bad == bytes, "PE " << me << ": " << bytes << "-byte put of PE " << writer
                                         << " into this PE, quieted before the signal, wrong at byte " << bad);
        }
        atomic_set(&signal[1], step, writer);
      }
      if (me == writer) wait_until(&signal[1], Cmp::kEq, step);
    }
    barrier_all();  // every PE counts the steps of every writer
  }
  sym_free(signal);
  sym_free(spare);
  sym_free(area);
}
}  // namespace

BOOST_AUTO_TEST_CASE(lone_put_then_quiet_is_seen_by_a_third_pe) {
  for (size_t bytes : {size_t{8}, size_t{1024}}) run(Shape::kLonePut, bytes, 50);
}

BOOST_AUTO_TEST_CASE(put_of_several_frames_then_quiet_is_seen_by_a_third_pe) {
  run(Shape::kLonePut, size_t{3} * 65536 + 5, 5);
}

BOOST_AUTO_TEST_CASE(stream_of_puts_then_quiet_is_seen_by_a_third_pe) { run(Shape::kStream, 256, 20); }

BOOST_AUTO_TEST_CASE(puts_to_two_targets_then_one_quiet_are_both_seen) { run(Shape::kTwoTargets, 64, 20); }
