// One misuse of gasket::am per mode (argv[1]); the job must end non-zero with a message naming the
// PE, the call and the value — never a hang, never a handler run on the wrong bytes. PE 0 sends
// to the last PE, which runs the handler (or commits the misuse itself), while the others wait.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/gasket.h"

using namespace gasket;

namespace {
std::string mode;
am::Token* kept_token = nullptr;
am::ShortHandler<int> reply_target;
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: active_message_errors MODE\n");
    return 2;
  }
  mode = argv[1];
  if (!init().is_ok()) return 2;
  const int me = my_pe(), target = n_pes() - 1;
  auto* flag = static_cast<long*>(sym_calloc(1, sizeof(long)));
  reply_target = am::register_short<int>([](am::Token&, int) {});
  // The culprit handler: what it does inside is the misuse.
  auto misuse = am::register_short<int>([](am::Token& t, int) {
    if (mode == "barrier_in_handler") barrier_all();
    if (mode == "request_in_handler") am::request(t.source(), reply_target, 1);
    if (mode == "wait_in_handler") {
      long word = 0;
      wait_until(&word, Cmp::kEq, 1L);
    }
    if (mode == "event_wait_in_handler") {
      am::Event e;
      e.wait();
    }
    if (mode == "token_after_return") kept_token = &t;
  });
  auto long_body = am::register_long<>([](am::Token&, void*, size_t) {});
  const uint16_t next_index = static_cast<uint16_t>(long_body.index + 1);
  // A handler registered with other argument types on the last PE than on the others.
  if (mode == "mismatched_registration") {
    if (me == target) {
      am::register_short<double>([](am::Token&, double) {});
    } else {
      am::register_short<int>([](am::Token&, int) {});
    }
  }
  if (mode == "medium_too_big") am::register_medium<>([](am::Token&, void*, size_t) {});
  barrier_all();
  if (me == 0) {
    if (mode == "mismatched_registration") {
      am::request(target, am::ShortHandler<int>{next_index}, 7);
    } else if (mode == "medium_too_big") {
      std::vector<char> big(am::limits(target).max_medium + 1);
      am::request_medium(target, am::MediumHandler<>{next_index}, big.data(), big.size());
    } else if (mode == "long_outside_segment") {
      long local[4] = {};
      am::request_long(target, long_body, local, sizeof local, &local[0]);
    } else if (mode == "unregistered_handler") {
      am::request(target, am::ShortHandler<int>{999}, 1);
    } else if (mode == "pe_out_of_range") {
      am::request(n_pes(), misuse, 1);
    } else {
      am::request(target, misuse, 1);
    }
  }
  if (me == target && mode == "token_after_return") {
    poll(true, [] { return kept_token != nullptr; });
    kept_token->reply(reply_target, 2);
  }
  // Everyone waits here; the job must end from the misuse before this completes.
  wait_until(flag, Cmp::kEq, 1L);
  return 0;
}
