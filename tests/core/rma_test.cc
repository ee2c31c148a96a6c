// put/get (blocking, non-blocking, strided) between every pair of PEs, checked byte for byte.
#define BOOST_TEST_MODULE rma
#include <cstring>
#include <vector>

#include "tests/core/fixture.h"

using namespace gasket;

namespace {
unsigned char pattern(int pe, size_t i) { return static_cast<unsigned char>(pe * 31 + i * 7 + (i >> 8)); }
}  // namespace

BOOST_AUTO_TEST_CASE(put_to_every_pe_all_sizes) {
  const int me = my_pe(), n = n_pes();
  const size_t kMax = 1 << 20;
  // One slot per source PE so that all PEs can write to everyone at once.
  auto* area = static_cast<unsigned char*>(sym_malloc(kMax * static_cast<size_t>(n)));
  BOOST_REQUIRE(area != nullptr);
  std::vector<unsigned char> src(kMax);
  for (size_t i = 0; i < kMax; ++i) src[i] = pattern(me, i);
  for (size_t bytes : {size_t{1}, size_t{7}, size_t{8}, size_t{64}, size_t{1000}, size_t{4096},
                       size_t{65536}, size_t{65537}, kMax}) {
    std::memset(area, 0, kMax * static_cast<size_t>(n));
    barrier_all();
    for (int k = 0; k < n; ++k) {
      int target = (me + k) % n;
      put(area + static_cast<size_t>(me) * kMax, src.data(), bytes, target);
    }
    barrier_all();
    for (int from = 0; from < n; ++from) {
      const unsigned char* got = area + static_cast<size_t>(from) * kMax;
      size_t bad = bytes;
      for (size_t i = 0; i < bytes; ++i) {
        if (got[i] != pattern(from, i)) {
          bad = i;
          break;
        }
      }
      BOOST_TEST(bad == bytes, "PE " << me << ": " << bytes << "-byte put from PE " << from
                                      << " wrong at byte " << bad);
      if (bytes < kMax) {
        BOOST_TEST(got[bytes] == 0, "PE " << me << ": put from PE " << from << " wrote past its end");
      }
    }
  }
  barrier_all();
  sym_free(area);
}

BOOST_AUTO_TEST_CASE(get_from_every_pe) {
  const int me = my_pe(), n = n_pes();
  const size_t kBytes = 300000;
  auto* mine = static_cast<unsigned char*>(sym_malloc(kBytes));
  for (size_t i = 0; i < kBytes; ++i) mine[i] = pattern(me, i);
  barrier_all();
  std::vector<unsigned char> buf(kBytes);
  for (int k = 0; k < n; ++k) {
    int from = (me + k) % n;
    for (size_t bytes : {size_t{1}, size_t{8}, size_t{333}, kBytes}) {
      std::fill(buf.begin(), buf.end(), 0);
      get(buf.data(), mine, bytes, from);
      bool same = true;
      for (size_t i = 0; i < bytes; ++i) same = same && buf[i] == pattern(from, i);
      BOOST_TEST(same, "PE " << me << ": get of " << bytes << " bytes from PE " << from);
    }
    get_nbi(buf.data(), mine + 100, 1000, from);
    quiet();
    bool same = true;
    for (size_t i = 0; i < 1000; ++i) same = same && buf[i] == pattern(from, i + 100);
    BOOST_TEST(same, "PE " << me << ": get_nbi from PE " << from);
  }
  barrier_all();
  sym_free(mine);
}

BOOST_AUTO_TEST_CASE(put_nbi_completes_at_quiet) {
  const int me = my_pe(), n = n_pes();
  auto* slots = static_cast<long*>(sym_calloc(static_cast<size_t>(n), sizeof(long)));
  long value = 1000 + me;
  for (int pe = 0; pe < n; ++pe) put_nbi(&slots[me], &value, sizeof value, pe);
  quiet();
  barrier_all();
  for (int from = 0; from < n; ++from) PE_EQUAL(slots[from], 1000L + from);
  barrier_all();
  sym_free(slots);
}

BOOST_AUTO_TEST_CASE(strided_put_and_get) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t kCount = 100;
  auto* dst = static_cast<int*>(sym_calloc(kCount * 3, sizeof(int)));
  std::vector<int> src(kCount * 2);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int>(me * 100000 + i);
  barrier_all();
  // Every 2nd source element to every 3rd destination slot on the right neighbour.
  iput(dst, src.data(), 3, 2, sizeof(int), kCount, right);
  barrier_all();
  for (size_t i = 0; i < kCount * 3; ++i) {
    int want = i % 3 == 0 ? static_cast<int>(left * 100000 + (i / 3) * 2) : 0;
    if (dst[i] != want) {
      BOOST_ERROR("PE " << me << ": iput slot " << i << " holds " << dst[i] << ", expected " << want);
      break;
    }
  }
  // Read back every 3rd element of the right neighbour's array into a dense buffer.
  std::vector<int> back(kCount, -1);
  iget(back.data(), dst, 1, 3, sizeof(int), kCount, right);
  for (size_t i = 0; i < kCount; ++i) {
    if (back[i] != static_cast<int>(me * 100000 + i * 2)) {
      BOOST_ERROR("PE " << me << ": iget element " << i << " is " << back[i]);
      break;
    }
  }
  barrier_all();
  sym_free(dst);
}

BOOST_AUTO_TEST_CASE(symmetric_offsets_agree_and_peer_pointers_work) {
  const int me = my_pe(), n = n_pes();
  void* a = sym_malloc(100);
  void* b = sym_align(4096, 5000);
  auto* offsets = static_cast<long*>(sym_calloc(static_cast<size_t>(2 * n), sizeof(long)));
  long mine[2] = {static_cast<char*>(a) - static_cast<char*>(static_cast<void*>(offsets)),
                  static_cast<char*>(b) - static_cast<char*>(static_cast<void*>(offsets))};
  PE_EQUAL(reinterpret_cast<uintptr_t>(b) % 4096, 0u);
  put(&offsets[2 * me], mine, sizeof mine, 0);
  barrier_all();
  if (me == 0) {
    for (int pe = 1; pe < n; ++pe) {
      PE_EQUAL(offsets[2 * pe], offsets[0]);
      PE_EQUAL(offsets[2 * pe + 1], offsets[1]);
    }
  }
  // A same-node peer's copy is a plain pointer away.
  int* flag = static_cast<int*>(sym_calloc(1, sizeof(int)));
  *flag = 7000 + me;
  barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    int* p = static_cast<int*>(peer_pointer(flag, pe));
    if (std::string(transport_name(pe)) == "direct") {
      BOOST_REQUIRE(p != nullptr);
      PE_EQUAL(*p, 7000 + pe);
    } else {
      PE_TEST(p == nullptr);
    }
  }
  PE_TEST(addr_accessible(flag, sizeof(int), (me + 1) % n));
  int on_stack = 0;
  PE_TEST(!addr_accessible(&on_stack, sizeof on_stack, 0));
  PE_TEST(!pe_accessible(n));
  barrier_all();
  sym_free(flag);
  sym_free(offsets);
  sym_free(b);
  sym_free(a);
}
