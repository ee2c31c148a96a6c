// A distributed hash table by remote procedure calls (gasket::am, core/gasket.h): each key lives
// on the PE its hash names, in that PE's own std::unordered_map. insert sends the value as a
// medium message to the owner, whose handler stores it; lookup sends the key, and the owner's
// handler replies with the value (or "absent"). Every PE inserts its keys, waits for each insert's
// completion, then looks up keys that other PEs inserted and checks the values.
// `gasketrun -n 4 bazel-bin/examples/am_hash_table [keys per PE]`
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/gasket.h"

namespace am = gasket::am;

namespace {

std::unordered_map<uint64_t, std::string> table;  // this PE's part of the table

// The lookup in flight (one at a time here): filled by the reply's handler.
struct Answer {
  bool arrived = false, found = false;
  std::string value;
};
Answer answer;

int owner(uint64_t key) { return static_cast<int>((key * 0x9E3779B97F4A7C15ull >> 33) % gasket::n_pes()); }
std::string value_of(uint64_t key) { return "value-" + std::to_string(key * 7 + 3); }

struct Calls {
  am::MediumHandler<uint64_t> insert;  // body: the value
  am::ShortHandler<uint64_t> lookup;
  am::MediumHandler<bool> found;  // the reply: body is the value when found
};
Calls calls;

void register_calls() {
  calls.insert = am::register_medium<uint64_t>([](am::Token&, void* body, size_t len, uint64_t key) {
    table[key] = std::string(static_cast<char*>(body), len);
  });
  calls.found = am::register_medium<bool>([](am::Token&, void* body, size_t len, bool found) {
    answer.found = found;
    answer.value.assign(static_cast<char*>(body), len);
    answer.arrived = true;
  });
  calls.lookup = am::register_short<uint64_t>([](am::Token& t, uint64_t key) {
    auto it = table.find(key);
    if (it == table.end()) {
      t.reply_medium(calls.found, nullptr, 0, false);
    } else {
      t.reply_medium(calls.found, it->second.data(), it->second.size(), true);
    }
  });
  gasket::barrier_all();  // every PE holds every handle before anyone calls
}

void insert(uint64_t key, const std::string& value, am::Event& done) {
  am::request_medium(am::Completion::event(done), owner(key), calls.insert, value.data(), value.size(), key);
}

Answer lookup(uint64_t key) {
  answer = Answer{};
  am::request(owner(key), calls.lookup, key);
  gasket::poll(true, [] { return answer.arrived; });
  return answer;
}

}  // namespace

int main(int argc, char** argv) {
  if (!gasket::init().is_ok()) return 1;
  const int me = gasket::my_pe(), n = gasket::n_pes();
  const uint64_t per_pe = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000;
  register_calls();

  // Keys me, me + n, me + 2n, ...: every PE inserts its own.
  std::vector<am::Event> inserted(per_pe);
  for (uint64_t i = 0; i < per_pe; ++i) insert(me + i * n, value_of(me + i * n), inserted[i]);
  for (am::Event& e : inserted) e.wait();
  gasket::barrier_all();

  // Look up the keys of the next PE, and keys nobody inserted.
  const int next = (me + 1) % n;
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < per_pe; ++i) {
    uint64_t key = next + i * n;
    Answer a = lookup(key);
    wrong += !a.found || a.value != value_of(key);
  }
  uint64_t absent_found = 0;
  for (uint64_t i = 0; i < 50; ++i) absent_found += lookup(per_pe * n + i).found;
  size_t held = table.size();
  gasket::barrier_all();

  // Totals on PE 0: every key stored once, every lookup right.
  auto* totals = static_cast<uint64_t*>(gasket::sym_calloc(3, sizeof(uint64_t)));
  gasket::atomic_add(&totals[0], static_cast<uint64_t>(held), 0);
  gasket::atomic_add(&totals[1], wrong, 0);
  gasket::atomic_add(&totals[2], absent_found, 0);
  gasket::barrier_all();
  int status = 0;
  if (me == 0) {
    bool ok = totals[0] == per_pe * n && totals[1] == 0 && totals[2] == 0;
    std::printf("am_hash_table: %d PEs, %llu keys stored (expected %llu), %llu wrong lookups, %llu absent keys found: %s\n",
                n, static_cast<unsigned long long>(totals[0]), static_cast<unsigned long long>(per_pe * n),
                static_cast<unsigned long long>(totals[1]), static_cast<unsigned long long>(totals[2]),
                ok ? "ok" : "FAILED");
    status = ok ? 0 : 1;
  }
  gasket::sym_free(totals);
  if (!gasket::finalize().is_ok()) return 1;
  return status;
}
