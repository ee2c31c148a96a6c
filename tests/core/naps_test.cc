// The waiting policy's nap (core/README.md "Waiting"): with a spin budget of one poll every wait
// naps at once, and a nap lasts up to GASKET_NAP_LIMIT — here 1000 s, far beyond the test's time
// limit — unless the write it waits for wakes it: a ring of the doorbell (direct path, pciddc shm
// writes) or input on the backend's fds (pciddc tcp). Each kind of write gets rounds of its own in
// which it is the ONLY write a waiting PE receives: a token goes 0 -> 1 -> ... -> n-1 -> 0, each
// hop one write of that kind into the next PE's word, made after a pause in which the next PE has
// gone to sleep. The barriers between rounds end before anyone waits again (each PE leaves a
// barrier once every write into it has arrived). So a kind of write that forgets to wake its
// target leaves the target asleep for 1000 s, and the job runs into the launcher's timeout.
// On paths without an input signal (ucx) waits yield instead: values are still checked.
#define BOOST_TEST_MODULE naps
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#define GASKET_TEST_ENVIRONMENT()                    \
  do {                                               \
    setenv("GASKET_SPIN_COUNT", "1", 1);             \
    setenv("GASKET_NAP_LIMIT", "1000000000", 1);     \
  } while (0)
#include "tests/core/fixture.h"

using namespace gasket;

namespace {

constexpr int kRounds = 4;
constexpr useconds_t kPauseUs = 3000;  // the next PE is asleep by then (a 1-poll spin budget)
constexpr size_t kLargeWords = (96 << 10) / sizeof(int64_t);  // > 64 KiB: several pciddc entries

// One kind of write: `initial` is stored locally before the round, `write` sends `token` into
// `pe`'s copy of the word (or area), and the waiter waits until `word` equals `expected(token)`.
struct WriteKind {
  const char* name;
  int64_t initial;
  std::function<void(int64_t* word, int64_t token, int pe)> write;
  std::function<int64_t(int64_t token)> expected;
};

int64_t same(int64_t token) { return token; }

std::vector<WriteKind> kinds(int64_t* large) {
  return {
      {"put", 0, [](int64_t* w, int64_t t, int pe) { put(w, &t, sizeof t, pe); }, same},
      {"strided put", 0,
       [](int64_t* w, int64_t t, int pe) {
         int64_t src[2] = {t, t};
         iput(w - 2, src, 2, 1, sizeof t, 2, pe);  // words -2 and 0 of the round's area
       },
       same},
      {"put of 96 KiB", 0,
       [large](int64_t*, int64_t t, int pe) {
         std::vector<int64_t> src(kLargeWords, t);
         put(large, src.data(), kLargeWords * sizeof t, pe);
       },
       same},
      {"atomic set", 0, [](int64_t* w, int64_t t, int pe) { atomic_set(w, t, pe); }, same},
      {"atomic swap", 0, [](int64_t* w, int64_t t, int pe) { (void)atomic_swap(w, t, pe); }, same},
      {"atomic compare-swap", 0, [](int64_t* w, int64_t t, int pe) { (void)atomic_compare_swap(w, int64_t{0}, t, pe); },
       same},
      {"atomic add", 0, [](int64_t* w, int64_t t, int pe) { atomic_add(w, t, pe); }, same},
      {"atomic fetch-add", 0, [](int64_t* w, int64_t t, int pe) { (void)atomic_fetch_add(w, t, pe); }, same},
      {"atomic inc", 0, [](int64_t* w, int64_t, int pe) { atomic_inc(w, pe); }, [](int64_t) { return int64_t{1}; }},
      {"atomic and", -1, [](int64_t* w, int64_t t, int pe) { atomic_and(w, t, pe); }, same},
      {"atomic fetch-and", -1, [](int64_t* w, int64_t t, int pe) { (void)atomic_fetch_and(w, t, pe); }, same},
      {"atomic or", 0, [](int64_t* w, int64_t t, int pe) { atomic_or(w, t, pe); }, same},
      {"atomic fetch-or", 0, [](int64_t* w, int64_t t, int pe) { (void)atomic_fetch_or(w, t, pe); }, same},
      {"atomic xor", 0, [](int64_t* w, int64_t t, int pe) { atomic_xor(w, t, pe); }, same},
      {"atomic fetch-xor", 0, [](int64_t* w, int64_t t, int pe) { (void)atomic_fetch_xor(w, t, pe); }, same},
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_kind_of_write_alone_wakes_its_sleeping_target) {
  const int me = my_pe(), n = n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  auto* area = static_cast<int64_t*>(sym_calloc(4, sizeof(int64_t)));
  auto* large = static_cast<int64_t*>(sym_calloc(kLargeWords, sizeof(int64_t)));
  for (const WriteKind& kind : kinds(large)) {
    const bool is_large = std::strcmp(kind.name, "put of 96 KiB") == 0;
    int64_t* word = is_large ? &large[kLargeWords - 1] : &area[2];
    for (int round = 1; round <= kRounds; ++round) {
      area[0] = area[2] = kind.initial;
      for (size_t i = 0; i < kLargeWords; ++i) large[i] = 0;
      barrier_all();
      auto token_of = [&](int pe) { return int64_t{round} * 1000 + pe + 1; };
      auto pass_on = [&] {
        usleep(kPauseUs);
        kind.write(&area[2], token_of(me), right);
      };
      if (me == 0) pass_on();
      int64_t want = kind.expected(token_of(left));
      wait_until(word, Cmp::kEq, want);
      if (me != 0) pass_on();
      BOOST_TEST(*word == want, "PE " << me << ", " << kind.name << ", round " << round);
      if (std::strcmp(kind.name, "strided put") == 0) {
        BOOST_TEST(area[0] == want, "PE " << me << ": strided put's first element");
      }
      if (is_large) {
        size_t wrong = 0;
        for (size_t i = 0; i < kLargeWords; ++i) wrong += large[i] != want;
        BOOST_TEST(wrong == 0u, "PE " << me << ": " << wrong << " words of the 96 KiB put differ");
      }
      barrier_all();
    }
  }
  sym_free(large);
  sym_free(area);
}

BOOST_AUTO_TEST_CASE(barrier_rounds_wake_every_pe) {
  auto* arrivals = static_cast<int64_t*>(sym_calloc(1, sizeof(int64_t)));
  for (int64_t round = 1; round <= 100; ++round) {
    atomic_add(arrivals, int64_t{1}, 0);
    barrier_all();
    if (my_pe() == 0) PE_EQUAL(*arrivals, round * n_pes());
    barrier_all();
  }
  sym_free(arrivals);
}
