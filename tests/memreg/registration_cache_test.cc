// The registration cache (core/memreg/registration_cache.h) against a recording registrar: hit,
// extend, eviction under the limit, invalidation after munmap/free and reuse of the range with
// different contents; and the single-copy kernel path (core/memreg/kernel_copy.h) into a child.
#define BOOST_TEST_MODULE memreg
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "core/memreg/kernel_copy.h"
#include "core/memreg/registration_cache.h"

using namespace gasket;
using memreg::Registration;
using memreg::RegistrationCache;

namespace {
const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

struct RecordingRegistrar : memreg::Registrar {
  std::map<segments::SegmentId, std::pair<char*, size_t>> live;
  std::vector<segments::SegmentId> deregistered;
  int registrations = 0;
  Status register_range(segments::SegmentId id, void* base, size_t size) override {
    ++registrations;
    live[id] = {static_cast<char*>(base), size};
    return Status::ok();
  }
  Status deregister_range(segments::SegmentId id) override {
    if (live.erase(id) == 0) return invalid_argument("not registered");
    deregistered.push_back(id);
    return Status::ok();
  }
};

char* map_pages(size_t pages, void* at = nullptr) {
  void* p = mmap(at, pages * kPage, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
  BOOST_TEST_REQUIRE(p != MAP_FAILED);
  return static_cast<char*>(p);
}

Registration must(Result<Registration> r) {
  BOOST_TEST_REQUIRE(r.is_ok(), r.status().message());
  return r.value();
}
}  // namespace

BOOST_AUTO_TEST_CASE(second_use_of_a_buffer_is_a_hit) {
  RecordingRegistrar reg;
  RegistrationCache cache(reg, 1 << 30, 100);
  char* buf = map_pages(4);
  Registration a = must(cache.acquire(buf + 10, 3 * kPage, "test"));
  BOOST_TEST(a.id == 100u);
  BOOST_TEST(a.base == buf);
  BOOST_TEST(a.size == 4 * kPage);  // page-aligned cover of [buf+10, buf+10+3 pages)
  BOOST_TEST(cache.release(a, "test").is_ok());
  Registration b = must(cache.acquire(buf + kPage, kPage, "test"));  // inside: a hit
  BOOST_TEST(b.id == a.id);
  BOOST_TEST(reg.registrations == 1);
  BOOST_TEST(cache.stats().hits == 1u);
  BOOST_TEST(cache.stats().misses == 1u);
  BOOST_TEST(cache.release(b, "test").is_ok());
  BOOST_TEST((cache.release(b, "test").code() == StatusCode::kInvalidArgument));  // released twice
  munmap(buf, 4 * kPage);
}

BOOST_AUTO_TEST_CASE(overlapping_and_adjacent_requests_extend_one_registration) {
  RecordingRegistrar reg;
  RegistrationCache cache(reg, 1 << 30, 1);
  char* buf = map_pages(8);
  Registration a = must(cache.acquire(buf, kPage, "test"));              // page 0, kept in use
  Registration b = must(cache.acquire(buf + kPage, kPage, "test"));      // page 1: adjacent
  BOOST_TEST(b.base == buf);
  BOOST_TEST(b.size == 2 * kPage);
  BOOST_TEST(reg.deregistered.empty());  // a is still in use: retired, not deregistered
  BOOST_TEST(cache.release(a, "test").is_ok());
  BOOST_TEST(reg.deregistered == std::vector<segments::SegmentId>{a.id});
  Registration c = must(cache.acquire(buf + kPage + 5, 3 * kPage, "test"));  // overlaps b's end
  BOOST_TEST(c.base == buf);
  BOOST_TEST(c.size == 5 * kPage);
  BOOST_TEST(cache.stats().extends == 2u);
  BOOST_TEST(cache.release(b, "test").is_ok());
  BOOST_TEST(cache.release(c, "test").is_ok());
  BOOST_TEST(reg.live.size() == 1u);  // only the union remains
  BOOST_TEST(must(cache.acquire(buf + 4 * kPage, 1, "test")).id == c.id);  // and it hits
  munmap(buf, 8 * kPage);
}

BOOST_AUTO_TEST_CASE(unused_registrations_are_evicted_least_recently_used_first) {
  RecordingRegistrar reg;
  RegistrationCache cache(reg, 4 * kPage, 1);  // room for two 2-page registrations
  char* buf = map_pages(16);
  Registration r[3];
  for (int i = 0; i < 3; ++i) r[i] = must(cache.acquire(buf + 4 * i * kPage, 2 * kPage, "test"));
  BOOST_TEST(reg.live.size() == 3u);  // all in use: none may be evicted, even over the limit
  BOOST_TEST(cache.release(r[1], "test").is_ok());  // r1 unused first: the LRU one
  BOOST_TEST(reg.deregistered == std::vector<segments::SegmentId>{r[1].id});
  BOOST_TEST(cache.release(r[0], "test").is_ok());
  BOOST_TEST(cache.release(r[2], "test").is_ok());
  BOOST_TEST(cache.stats().registered_bytes <= 4 * kPage);
  BOOST_TEST(cache.stats().evictions == 1u);
  Registration again = must(cache.acquire(buf + 4 * kPage, 2 * kPage, "test"));  // r1 again: miss
  BOOST_TEST(again.id != r[1].id);
  BOOST_TEST(cache.stats().evictions == 2u);  // r0, least recently released, made room
  BOOST_TEST(reg.deregistered.back() == r[0].id);
  BOOST_TEST(cache.release(again, "test").is_ok());
  munmap(buf, 16 * kPage);
}

BOOST_AUTO_TEST_CASE(munmap_invalidates_and_reuse_of_the_range_registers_anew) {
  RecordingRegistrar reg;
  RegistrationCache cache(reg, 1 << 30, 1);
  BOOST_TEST_REQUIRE(cache.watch_unmaps().is_ok());
  char* buf = map_pages(4);
  std::memset(buf, 'A', 4 * kPage);
  Registration a = must(cache.acquire(buf, 4 * kPage, "test"));
  BOOST_TEST(cache.release(a, "test").is_ok());
  BOOST_TEST(munmap(buf, 4 * kPage) == 0);
  char* again = map_pages(4, buf);  // the same addresses, new pages, different contents
  BOOST_TEST_REQUIRE(again == buf);
  std::memset(again, 'B', 4 * kPage);
  Registration b = must(cache.acquire(again, 4 * kPage, "test"));
  BOOST_TEST(b.id != a.id);  // never the stale registration
  BOOST_TEST(cache.stats().invalidations == 1u);
  BOOST_TEST(reg.deregistered == std::vector<segments::SegmentId>{a.id});
  BOOST_TEST(reg.live.count(b.id) == 1u);
  BOOST_TEST(cache.release(b, "test").is_ok());
  munmap(again, 4 * kPage);
}

BOOST_AUTO_TEST_CASE(free_of_a_large_block_invalidates_through_libc) {
  RecordingRegistrar reg;
  RegistrationCache cache(reg, 1 << 30, 1);
  BOOST_TEST_REQUIRE(cache.watch_unmaps().is_ok());
  const size_t bytes = 8 << 20;  // above malloc's mmap threshold: free() unmaps inside libc
  char* block = static_cast<char*>(std::malloc(bytes));
  std::memset(block, 1, bytes);
  Registration a = must(cache.acquire(block, bytes, "test"));
  BOOST_TEST(cache.release(a, "test").is_ok());
  std::free(block);
  char* next = static_cast<char*>(std::malloc(bytes));
  std::memset(next, 2, bytes);
  Registration b = must(cache.acquire(next, bytes, "test"));
  BOOST_TEST(b.id != a.id);
  BOOST_TEST(cache.stats().invalidations >= 1u);
  BOOST_TEST(cache.release(b, "test").is_ok());
  std::free(next);
}

BOOST_AUTO_TEST_CASE(kernel_copy_writes_into_and_reads_from_another_process) {
  static char buffer[4096];
  std::memset(buffer, 'p', sizeof buffer);
  int ready[2], done[2];
  BOOST_TEST_REQUIRE(pipe(ready) == 0);
  BOOST_TEST_REQUIRE(pipe(done) == 0);
  pid_t child = fork();
  if (child == 0) {  // the peer: waits, then checks what the parent wrote into its copy
    char c;
    std::memset(buffer, 'c', sizeof buffer);
    if (write(ready[1], "r", 1) != 1 || read(done[0], &c, 1) != 1) _exit(3);
    for (size_t i = 0; i < sizeof buffer; ++i) {
      if (buffer[i] != (i < 100 ? 'c' : 'w')) _exit(1);
    }
    _exit(0);
  }
  char c;
  BOOST_TEST_REQUIRE(read(ready[0], &c, 1) == 1);
  memreg::KernelCopy copy(0, {getpid(), child, 0});
  BOOST_TEST(copy.permitted(1));
  BOOST_TEST(!copy.reachable(2));
  std::vector<char> out(4096 - 100, 'w');
  Status st = copy.write(1, reinterpret_cast<uintptr_t>(buffer) + 100, out.data(), out.size());
  BOOST_TEST(st.is_ok(), st.message());
  char head[100] = {};
  BOOST_TEST(copy.read(1, head, reinterpret_cast<uintptr_t>(buffer), sizeof head).is_ok());
  BOOST_TEST(std::string(head, 100) == std::string(100, 'c'));
  Status bad = copy.read(1, head, 8, sizeof head);  // an address the child does not have
  BOOST_TEST(!bad.is_ok());
  BOOST_TEST(bad.message().find("PE 1") != std::string::npos, bad.message());
  BOOST_TEST(write(done[1], "d", 1) == 1);
  int status = 0;
  BOOST_TEST_REQUIRE(waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
  BOOST_TEST((copy.write(2, 0, head, 1).code() == StatusCode::kInvalidArgument));
}
