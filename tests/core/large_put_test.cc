// Large same-node puts and gets: every byte arrives, nothing beside the target
// range changes, at sizes around the copy routine's switches (glibc's memcpy on this machine: `rep
// movsb` from 2112 bytes, a vector loop from 1 MiB; bench/core/copy_bench) and at source and
// destination offsets that are not the same modulo a cache line. A PE that waits for a flag put
// after a 4 MiB put sees the whole 4 MiB (a waiter that polls on while the CPUs are free, and one
// that naps, core/README.md "Waiting"). The wait budget's arithmetic: a job that is not
// oversubscribed polls on past GASKET_SPIN_COUNT up to Runtime::kFreeCpusSpinFactor times it.
#define BOOST_TEST_MODULE large_put
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#define GASKET_TEST_ENVIRONMENT() setenv("GASKET_SPIN_COUNT", "100", 1)
#include "core/runtime.h"
#include "tests/core/fixture.h"

using namespace gasket;

namespace {
constexpr size_t kSizes[] = {2111, 2112, 2113, 65536 + 7, (1u << 20) - 1, 1u << 20, (1u << 20) + 1, (4u << 20) + 3};
constexpr size_t kOffsets[][2] = {{0, 0}, {1, 0}, {0, 63}, {8, 24}};  // {destination, source}
constexpr size_t kGuard = 64;                                        // bytes checked on each side
constexpr size_t kArea = kGuard + 64 + (4u << 20) + 3 + kGuard;

// The byte `i` of a transfer of `bytes` from PE `from`: differs between neighbours, sizes and PEs.
unsigned char pattern(int from, size_t bytes, size_t i) {
  return static_cast<unsigned char>((i * 131u + bytes * 7u + static_cast<size_t>(from) * 29u + 1u) % 251u);
}

void fill(unsigned char* p, int from, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) p[i] = pattern(from, bytes, i);
}

// The first byte of `p` that is not PE `from`'s pattern, or `bytes` when all are.
size_t first_wrong(const unsigned char* p, int from, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (p[i] != pattern(from, bytes, i)) return i;
  }
  return bytes;
}

// The kGuard bytes on each side of [offset, offset + bytes) of an area whose transfer range
// starts kGuard bytes in, left at their 0xEE.
bool guards_intact(const unsigned char* area, size_t offset, size_t bytes) {
  const unsigned char* range = area + kGuard + offset;
  for (size_t i = 1; i <= kGuard; ++i) {
    if (range[-static_cast<ptrdiff_t>(i)] != 0xEE || range[bytes + i - 1] != 0xEE) return false;
  }
  return true;
}
}  // namespace

BOOST_AUTO_TEST_CASE(puts_and_gets_around_the_copy_switches_arrive_whole) {
  const int me = my_pe(), n = n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  auto* area = static_cast<unsigned char*>(sym_malloc(kArea));
  std::vector<unsigned char> local(kArea);
  for (size_t bytes : kSizes) {
    for (const auto& off : kOffsets) {
      const size_t dst_off = off[0], src_off = off[1];
      std::memset(area, 0xEE, kArea);
      fill(local.data() + src_off, me, bytes);
      barrier_all();  // every area reset before any put lands
      put(area + kGuard + dst_off, local.data() + src_off, bytes, next);
      quiet();
      barrier_all();
      size_t wrong = first_wrong(area + kGuard + dst_off, prev, bytes);
      BOOST_TEST(wrong == bytes, "PE " << me << ": put of " << bytes << " bytes from PE " << prev << " (destination offset "
                                      << dst_off << ", source offset " << src_off << ") wrong from byte " << wrong);
      BOOST_TEST(guards_intact(area, dst_off, bytes), "PE " << me << ": put of " << bytes
                                                            << " bytes wrote outside its range (destination offset " << dst_off << ")");
      // Get back what this PE put into `next`, to a destination offset the put's source had.
      std::memset(local.data(), 0xEE, kArea);
      get(local.data() + kGuard + src_off, area + kGuard + dst_off, bytes, next);
      wrong = first_wrong(local.data() + kGuard + src_off, me, bytes);
      BOOST_TEST(wrong == bytes, "PE " << me << ": get of " << bytes << " bytes from PE " << next << " (source offset "
                                      << dst_off << ", destination offset " << src_off << ") wrong from byte " << wrong);
      BOOST_TEST(guards_intact(local.data(), src_off, bytes), "PE " << me << ": get of " << bytes
                                                                   << " bytes wrote outside its range");
      barrier_all();  // every get done before the next round resets the areas
    }
  }
  sym_free(area);
}

BOOST_AUTO_TEST_CASE(a_waiter_sees_a_large_put_before_the_flag_after_it) {
  constexpr size_t kBytes = 4u << 20;
  constexpr int64_t kRounds = 8;
  const int me = my_pe(), last = n_pes() - 1;
  auto* data = static_cast<unsigned char*>(sym_malloc(kBytes));
  auto* flag = static_cast<int64_t*>(sym_calloc(1, sizeof(int64_t)));
  std::vector<unsigned char> local(kBytes);
  barrier_all();
  for (int64_t round = 1; round <= kRounds; ++round) {
    if (me == 0 && last != 0) {
      fill(local.data(), static_cast<int>(round), kBytes);
      put(data, local.data(), kBytes, last);
      fence();
      put(flag, &round, sizeof round, last);
    } else if (me == last) {
      wait_until(flag, Cmp::kGe, round);
      size_t wrong = first_wrong(data, static_cast<int>(round), kBytes);
      BOOST_TEST(wrong == kBytes, "PE " << me << ": round " << round << ": 4 MiB put wrong from byte " << wrong);
    }
    barrier_all();  // PE 0 overwrites `data` only after the check
  }
  sym_free(flag);
  sym_free(data);
}

BOOST_AUTO_TEST_CASE(a_wait_polls_on_past_its_budget_while_the_cpus_are_free) {
  core::Runtime* r = core::Runtime::get();
  // Launched on the local path (no GASKET_LOCAL=backend, naps not turned off) every peer is on the
  // direct path, so naps are futex naps; forced through a backend they are not.
  const char* local = std::getenv("GASKET_LOCAL");
  const char* nap_limit = std::getenv("GASKET_NAP_LIMIT");
  const bool backend = local != nullptr && std::strcmp(local, "backend") == 0;
  if (nap_limit == nullptr || std::strcmp(nap_limit, "0") != 0) {
    BOOST_TEST(r->naps_allowed() == !backend, "PE " << r->my_pe() << ": GASKET_LOCAL=" << (local ? local : "(unset)"));
  }
  if (r->oversubscribed()) {
    BOOST_TEST(r->spin_count() == 16u);
    BOOST_TEST(r->free_cpus_spin_count() == 100u);
  } else if (r->naps_allowed()) {  // the direct path: futex naps
    BOOST_TEST(r->spin_count() == 100u);
    BOOST_TEST(r->free_cpus_spin_count() == 100u * core::Runtime::kFreeCpusSpinFactor);
  } else {  // a backend path: past the budget a wait naps in poll() at once
    BOOST_TEST(r->spin_count() == 100u);
    BOOST_TEST(r->free_cpus_spin_count() == 0u);
  }
}
