// Global and static variables as symmetric objects: initialised, zero-initialised, a large .bss,
// static locals and C++ globals with constructors keep their values across the runtime's
// redistribution, and every PE puts, gets, runs atomics and waits on them on every other PE.
// Built several ways (tests/redistribution/BUILD): PIE and non-PIE, the runtime linked statically
// or as shared libraries, and with GASKET_REDISTRIBUTE=no (GASKET_TEST_NO_REDISTRIBUTE), where
// the same operations go through the backend's registration and the kernel copy path.
#define BOOST_TEST_MODULE redistribution
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifdef GASKET_TEST_NO_REDISTRIBUTE
#define GASKET_TEST_ENVIRONMENT() setenv("GASKET_REDISTRIBUTE", "no", 1)
#endif
#include "tests/core/fixture.h"

using namespace gasket;


// ---- the static data under test ----
int64_t g_initialised[8] = {11, 22, 33, 44, 55, 66, 77, 88};
double g_pi = 3.14159265358979;
char g_text[32] = "redistributed data";
int64_t g_zero[64];                 // .bss
int32_t g_counter32;                // .bss, atomics target
alignas(64) int64_t g_counter64;    // .bss, atomics target
alignas(64) int64_t g_flag;         // .bss, wait_until target
int64_t g_slots[64];                // .bss, one slot per source PE
constexpr size_t kBigBytes = size_t{256} << 20;
char g_big[kBigBytes];              // a large .bss: untouched pages must cost nothing

int64_t* static_local() {
  static int64_t value = 4242;  // a static local (in .data)
  return &value;
}

struct Constructed {
  Constructed() : magic(0xC0FFEE), self(this) {
    for (int i = 0; i < 8; ++i) squares[i] = i * i;
  }
  int64_t magic;
  Constructed* self;
  int64_t squares[8];
};
Constructed g_constructed;  // constructor runs before main, before init
std::vector<int> g_vector = {3, 1, 4, 1, 5};
std::string g_string = "a string long enough to live on the heap, pointed to from .bss";


namespace {
bool redistribution_on() {
#ifdef GASKET_TEST_NO_REDISTRIBUTE
  return false;
#else
  return true;
#endif
}

// The /proc/self/maps line of the mapping holding `addr`.
std::string mapping_of(const void* addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  auto a = reinterpret_cast<uintptr_t>(addr);
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi) return line;
  }
  return "";
}

// Resident shared memory of this process (kB), from /proc/self/status.
long rss_shmem_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssShmem:", 0) == 0) return std::atol(line.c_str() + 9);
  }
  return -1;
}
}  // namespace

BOOST_AUTO_TEST_CASE(values_are_preserved_across_redistribution) {
  for (int i = 0; i < 8; ++i) PE_EQUAL(g_initialised[i], 11 * (i + 1));
  PE_EQUAL(g_pi, 3.14159265358979);
  PE_EQUAL(std::string(g_text), std::string("redistributed data"));
  for (int64_t v : g_zero) PE_EQUAL(v, 0);
  PE_EQUAL(*static_local(), 4242);
  PE_EQUAL(g_constructed.magic, 0xC0FFEE);
  PE_TEST(g_constructed.self == &g_constructed);
  for (int i = 0; i < 8; ++i) PE_EQUAL(g_constructed.squares[i], i * i);
  PE_EQUAL(g_vector.size(), 5u);
  PE_EQUAL(g_vector[2], 4);
  PE_EQUAL(g_string, std::string("a string long enough to live on the heap, pointed to from .bss"));
  PE_EQUAL(g_big[0] + g_big[kBigBytes / 2] + g_big[kBigBytes - 1], 0);
}

BOOST_AUTO_TEST_CASE(static_data_is_a_segment_mapped_as_configured) {
  std::string line = mapping_of(&g_initialised);
  BOOST_TEST_MESSAGE("PE " << my_pe() << ": " << line);
  bool on_file = line.find("gasket-") != std::string::npos && line.find("-data") != std::string::npos;
  PE_TEST(on_file == redistribution_on());
  // Redistributed: one mapping from .data to the end of .bss.
  if (redistribution_on()) PE_TEST(mapping_of(&g_big[kBigBytes - 1]) == line);
  for (int pe = 0; pe < n_pes(); ++pe) {
    PE_TEST(addr_accessible(&g_initialised, sizeof g_initialised, pe));
    PE_TEST(addr_accessible(&g_big[kBigBytes - 8], 8, pe));
    PE_TEST(addr_accessible(static_local(), 8, pe));
  }
  if (redistribution_on() && std::string(transport_name((my_pe() + 1) % n_pes())) == "direct") {
    PE_TEST(peer_pointer(&g_flag, (my_pe() + 1) % n_pes()) != nullptr);
  }
  // 256 MiB of .bss, untouched: the redistribution must not have made it resident.
  long shmem = rss_shmem_kb();
  BOOST_TEST_MESSAGE("PE " << my_pe() << ": RssShmem " << shmem << " kB");
  PE_TEST(shmem >= 0);
  PE_TEST(shmem < 64 * 1024);
}

BOOST_AUTO_TEST_CASE(put_and_get_on_globals_from_every_pe) {
  const int me = my_pe(), n = n_pes();
  barrier_all();
  // Every PE writes its slot on every PE, from a stack buffer.
  for (int pe = 0; pe < n; ++pe) {
    int64_t v = 1000 * me + pe;
    put(&g_slots[me], &v, sizeof v, pe);
  }
  // A large put into the far end of the big .bss of the right neighbour.
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  std::vector<char> block(200000);
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>(i * 7 + me);
  put(&g_big[kBigBytes - block.size()], block.data(), block.size(), right);
  quiet();
  barrier_all();
  for (int src = 0; src < n; ++src) PE_EQUAL(g_slots[src], 1000 * src + me);
  for (size_t i = 0; i < block.size(); i += 997) {
    PE_EQUAL(g_big[kBigBytes - block.size() + i], static_cast<char>(i * 7 + left));
  }
  // Gets: initialised data and a static local of every PE, the neighbour's big block.
  for (int pe = 0; pe < n; ++pe) {
    int64_t got[8] = {};
    get(got, g_initialised, sizeof got, pe);
    for (int i = 0; i < 8; ++i) PE_EQUAL(got[i], 11 * (i + 1));
    int64_t local_value = 0;
    get(&local_value, static_local(), sizeof local_value, pe);
    PE_EQUAL(local_value, 4242);
    int64_t magic = 0;
    get(&magic, &g_constructed.magic, sizeof magic, pe);
    PE_EQUAL(magic, 0xC0FFEE);
  }
  std::vector<char> back(block.size());
  get(back.data(), &g_big[kBigBytes - block.size()], back.size(), right);
  PE_TEST(back == block);
  // Strided: every other element of the right neighbour's slots.
  int64_t strided[4] = {};
  iget(strided, g_slots, 1, 2, sizeof(int64_t), n / 2, right);
  for (int i = 0; i < n / 2; ++i) PE_EQUAL(strided[i], 1000 * (2 * i) + right);
  barrier_all();
}

BOOST_AUTO_TEST_CASE(atomics_on_globals_are_exact_under_contention) {
  const int me = my_pe(), n = n_pes();
  barrier_all();
  const int kIters = 300;
  for (int i = 0; i < kIters; ++i) {
    atomic_fetch_add(&g_counter64, int64_t{1}, 0);
    atomic_add(&g_counter32, int32_t{2}, (me + 1) % n);
  }
  barrier_all();
  PE_EQUAL(atomic_fetch(&g_counter64, 0), static_cast<int64_t>(n) * kIters);
  PE_EQUAL(atomic_fetch(&g_counter32, me), 2 * kIters);
  PE_EQUAL(g_counter32, 2 * kIters);
  barrier_all();
  // compare-swap: exactly one PE wins PE 0's word.
  int64_t old = atomic_compare_swap(&g_counter64, static_cast<int64_t>(n) * kIters, int64_t{-1} - me, 0);
  barrier_all();
  int64_t final_value = atomic_fetch(&g_counter64, 0);
  PE_TEST(final_value < 0);
  PE_TEST((old == static_cast<int64_t>(n) * kIters) == (final_value == -1 - me));
  PE_EQUAL(atomic_swap(&g_zero[me % 64], int64_t{me + 5}, me), 0);
  PE_EQUAL(g_zero[me % 64], me + 5);
  barrier_all();
}

BOOST_AUTO_TEST_CASE(wait_until_on_a_global_set_remotely) {
  const int me = my_pe(), n = n_pes();
  barrier_all();
  // A token passes around the ring: PE 0 starts, each PE waits for it, then passes it on.
  if (me != 0) wait_until(&g_flag, Cmp::kEq, int64_t{me});
  int64_t next = (me + 1) % n == 0 ? n : me + 1;
  atomic_set(&g_flag, next, (me + 1) % n);
  if (me == 0) wait_until(&g_flag, Cmp::kEq, int64_t{n});
  PE_EQUAL(g_flag, me == 0 ? n : me);
  barrier_all();
  // A put of a value, then a fence and a flag: the value is there when the flag is.
  int64_t value = 7000 + me;
  put(&g_slots[63], &value, sizeof value, (me + 1) % n);
  fence();
  atomic_set(&g_flag, int64_t{-1}, (me + 1) % n);
  wait_until(&g_flag, Cmp::kEq, int64_t{-1});
  PE_EQUAL(g_slots[63], 7000 + (me + n - 1) % n);
  barrier_all();
}
