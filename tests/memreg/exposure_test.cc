// gasket::memreg (core/gasket.h): every PE exposes a stack, a malloc'd and an mmap'd buffer and
// hands the descriptors to its peers through the symmetric heap; peers put into and get from them
// by descriptor — same node by kernel copy, other nodes through the backend's registration (ucx)
// or the bounce segment (pciddc), and the bounce segment everywhere in the build with
// GASKET_MEMREG_SINGLE_COPY=no (GASKET_TEST_NO_SINGLE_COPY). Then a buffer is freed and a new one
// (likely at the same address) exposed with different contents, and bad calls return errors.
#define BOOST_TEST_MODULE memreg_exposure
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Several bounce pipeline stages per transfer; the bounce segment everywhere when single copy is off.
#ifdef GASKET_TEST_NO_SINGLE_COPY
#define GASKET_TEST_ENVIRONMENT() \
  (setenv("GASKET_MEMREG_SINGLE_COPY", "no", 1), setenv("GASKET_MEMREG_BOUNCE", "16K", 0))
#else
#define GASKET_TEST_ENVIRONMENT() setenv("GASKET_MEMREG_BOUNCE", "16K", 0)
#endif
#include "tests/core/fixture.h"

using namespace gasket;

#define PE_REQUIRE_OK(status_expr)                                                      \
  do {                                                                                  \
    const Status pe_st_ = (status_expr);                                                \
    BOOST_TEST_REQUIRE(pe_st_.is_ok(), "PE " << gasket::my_pe() << ": " #status_expr " -> " \
                                                << pe_st_.message());                   \
  } while (0)


namespace {

constexpr size_t kSlotBytes = 4096;  // one descriptor: 8-byte length, then its bytes

// Descriptors published by every PE: slot (owner, index) in each PE's copy of a symmetric array.
class DescriptorBoard {
 public:
  explicit DescriptorBoard(int per_pe) : per_pe_(per_pe) {
    slots_ = static_cast<char*>(sym_malloc(static_cast<size_t>(n_pes() * per_pe) * kSlotBytes));
    BOOST_TEST_REQUIRE(slots_ != nullptr);
  }
  ~DescriptorBoard() { sym_free(slots_); }
  // Sends this PE's descriptor `index` to every PE (then barrier before reading).
  void publish(int index, const std::string& descriptor) {
    BOOST_TEST_REQUIRE(descriptor.size() + 8 <= kSlotBytes);
    std::vector<char> slot(8 + descriptor.size());
    uint64_t n = descriptor.size();
    std::memcpy(slot.data(), &n, 8);
    std::memcpy(slot.data() + 8, descriptor.data(), descriptor.size());
    for (int pe = 0; pe < n_pes(); ++pe) put(slot_of(my_pe(), index), slot.data(), slot.size(), pe);
    quiet();
  }
  std::string descriptor(int owner, int index) const {
    uint64_t n = 0;
    std::memcpy(&n, slot_of(owner, index), 8);
    return std::string(slot_of(owner, index) + 8, n);
  }

 private:
  char* slot_of(int owner, int index) const {
    return slots_ + static_cast<size_t>(owner * per_pe_ + index) * kSlotBytes;
  }
  int per_pe_;
  char* slots_;
};

char pattern(int pe, size_t i, int round) { return static_cast<char>((i * 31 + static_cast<size_t>(pe) * 7 + round * 13) & 0xff); }

void fill(char* buf, size_t len, int pe, int round) {
  for (size_t i = 0; i < len; ++i) buf[i] = pattern(pe, i, round);
}

// The index of the first byte of `buf` that differs from the pattern, or len.
size_t first_mismatch(const char* buf, size_t len, int pe, int round) {
  for (size_t i = 0; i < len; ++i) {
    if (buf[i] != pattern(pe, i, round)) return i;
  }
  return len;
}

}  // namespace

BOOST_AUTO_TEST_CASE(peers_put_and_get_stack_malloc_and_mmap_buffers) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  char stack_buffer[3000];
  constexpr size_t kMallocBytes = 100000, kMmapBytes = 3 * 4096 + 100;
  char* heap_buffer = static_cast<char*>(std::malloc(kMallocBytes));
  void* mapped = mmap(nullptr, kMmapBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  BOOST_TEST_REQUIRE(mapped != MAP_FAILED);
  struct Buffer {
    char* data;
    size_t len;
  } buffers[3] = {{stack_buffer, sizeof stack_buffer}, {heap_buffer, kMallocBytes},
                  {static_cast<char*>(mapped), kMmapBytes}};
  DescriptorBoard board(3);
  std::vector<memreg::Exposure> exposures;
  for (int b = 0; b < 3; ++b) {
    std::memset(buffers[b].data, 0, buffers[b].len);
    Result<memreg::Exposure> e = memreg::expose(buffers[b].data, buffers[b].len);
    BOOST_TEST_REQUIRE(e.is_ok(), e.status().message());
    exposures.push_back(e.value());
    board.publish(b, e->descriptor);
  }
  barrier_all();
  // Puts: the right neighbour's buffers get this PE's pattern, all but the first 5 bytes.
  for (int b = 0; b < 3; ++b) {
    std::vector<char> src(buffers[b].len - 5);
    fill(src.data(), src.size(), me, b);
    PE_REQUIRE_OK(memreg::put(right, board.descriptor(right, b), 5, src.data(), src.size()));
  }
  quiet();
  barrier_all();
  for (int b = 0; b < 3; ++b) {
    PE_TEST(buffers[b].data[0] == 0 && buffers[b].data[4] == 0);
    size_t bad = first_mismatch(buffers[b].data + 5, buffers[b].len - 5, left, b);
    BOOST_TEST(bad == buffers[b].len - 5, "PE " << me << ": buffer " << b << " from PE " << left
                                                 << " differs at byte " << bad + 5);
  }
  barrier_all();
  // Gets: every PE reads every PE's buffers (its own too), whole and a slice in the middle.
  for (int b = 0; b < 3; ++b) fill(buffers[b].data, buffers[b].len, me, 10 + b);
  barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    for (int b = 0; b < 3; ++b) {
      std::vector<char> got(buffers[b].len, 0);
      PE_REQUIRE_OK(memreg::get(pe, board.descriptor(pe, b), 0, got.data(), got.size()));
      size_t bad = first_mismatch(got.data(), got.size(), pe, 10 + b);
      BOOST_TEST(bad == got.size(), "PE " << me << ": get of PE " << pe << "'s buffer " << b << " differs at byte " << bad);
      char slice[100];
      PE_REQUIRE_OK(memreg::get(pe, board.descriptor(pe, b), 1000, slice, sizeof slice));
      PE_TEST(slice[0] == pattern(pe, 1000, 10 + b) && slice[99] == pattern(pe, 1099, 10 + b));
    }
  }
  barrier_all();
  for (const memreg::Exposure& e : exposures) PE_REQUIRE_OK(memreg::release(e));
  barrier_all();
  munmap(mapped, kMmapBytes);
  std::free(heap_buffer);
}

BOOST_AUTO_TEST_CASE(a_buffer_freed_and_reallocated_shows_its_new_contents) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n;
  DescriptorBoard board(1);
  // Large enough that free() unmaps it (the registration must be dropped, not reused), and
  // exposed twice per round (the second time a hit in the registration cache).
  constexpr size_t kBytes = 512 * 1024;
  for (int round = 0; round < 3; ++round) {
    char* buf = static_cast<char*>(std::malloc(kBytes));
    fill(buf, kBytes, me, 20 + round);
    Result<memreg::Exposure> first = memreg::expose(buf, kBytes);
    BOOST_TEST_REQUIRE(first.is_ok(), first.status().message());
    PE_REQUIRE_OK(memreg::release(first.value()));
    Result<memreg::Exposure> e = memreg::expose(buf + 64, kBytes - 64);
    BOOST_TEST_REQUIRE(e.is_ok(), e.status().message());
    board.publish(0, e->descriptor);
    barrier_all();
    std::vector<char> got(kBytes - 64);
    PE_REQUIRE_OK(memreg::get(right, board.descriptor(right, 0), 0, got.data(), got.size()));
    std::vector<char> want(kBytes);  // PE right's contents; exposed from byte 64 on
    fill(want.data(), kBytes, right, 20 + round);
    size_t bad = 0;
    while (bad < got.size() && got[bad] == want[64 + bad]) ++bad;
    BOOST_TEST(bad == got.size(), "PE " << me << ": round " << round << ": PE " << right
                                        << "'s new buffer reads back wrong from byte " << bad);
    barrier_all();
    PE_REQUIRE_OK(memreg::release(e.value()));
    std::free(buf);
  }
}

BOOST_AUTO_TEST_CASE(bad_calls_return_errors_naming_the_pes) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n;
  char buf[256] = {};
  Result<memreg::Exposure> e = memreg::expose(buf, sizeof buf);
  BOOST_TEST_REQUIRE(e.is_ok(), e.status().message());
  DescriptorBoard board(1);
  board.publish(0, e->descriptor);
  barrier_all();
  const std::string d = board.descriptor(right, 0);
  char data[64] = {};
  Status past_end = memreg::put(right, d, 200, data, sizeof data);
  PE_TEST(past_end.code() == StatusCode::kInvalidArgument);
  PE_TEST(past_end.message().find("past the end") != std::string::npos);
  PE_TEST(past_end.message().find("PE " + std::to_string(right)) != std::string::npos);
  if (n > 1) {
    Status wrong_owner = memreg::get((right + 1) % n, d, 0, data, 8);
    PE_TEST(wrong_owner.code() == StatusCode::kInvalidArgument);
    PE_TEST(wrong_owner.message().find("descriptor is PE " + std::to_string(right)) != std::string::npos);
  }
  Status garbage = memreg::get(right, "not a descriptor", 0, data, 8);
  PE_TEST(garbage.code() == StatusCode::kInvalidArgument);
  Status out_of_range = memreg::get(n, d, 0, data, 8);
  PE_TEST(out_of_range.code() == StatusCode::kInvalidArgument);
  barrier_all();
  PE_REQUIRE_OK(memreg::release(e.value()));
  Status twice = memreg::release(e.value());
  PE_TEST(twice.code() == StatusCode::kInvalidArgument);
  barrier_all();
}
