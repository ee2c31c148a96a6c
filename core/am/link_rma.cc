#include "core/am/link_rma.h"

#include <cstring>

#include "core/am/cpu_atomic.h"
#include "core/base/log.h"

namespace gasket::core::am {

namespace {
// Every request starts with this header; a put's bytes follow it.
struct Request {
  uint64_t cookie;  // 0: a put (acknowledged by target)
  uint64_t offset;
  uint64_t bytes;
  uint64_t operand;
  uint64_t compare;
  uint64_t exposure;
  uint32_t segment;
  uint8_t op;
  uint8_t width;
  uint16_t reserved;
};
// Every reply: a get's bytes, or a refusal's reason, follow it.
struct Reply {
  uint64_t cookie;
  uint64_t value;
  uint32_t failed;
  uint32_t reserved;
};

std::string encode(const Request& r, const void* data = nullptr, size_t len = 0) {
  std::string m(reinterpret_cast<const char*>(&r), sizeof r);
  if (len > 0) m.append(static_cast<const char*>(data), len);
  return m;
}
}  // namespace

LinkRma::LinkRma(StreamLinks& links, Resolve resolve, WaitUntil wait_until)
    : links_(links), resolve_(std::move(resolve)), wait_until_(std::move(wait_until)) {
  for (HandlerId id : {kPut, kGet, kAtomic}) {
    links_.register_handler(id, [this, id](int src, const void* p, size_t n) { serve(src, id, static_cast<const char*>(p), n); });
  }
  links_.register_handler(kReply, [this](int src, const void* p, size_t n) { reply(src, static_cast<const char*>(p), n); });
}

Status LinkRma::request(int pe, HandlerId id, const std::string& message, Waiter* w) {
  Status st = links_.send(pe, id, message.data(), message.size());
  if (!st.is_ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    waiters_.erase(reinterpret_cast<const Request*>(message.data())->cookie);
    return st;
  }
  wait_until_([&] { return w->done.load(std::memory_order_acquire) || !links_.lost_reason(pe).empty(); });
  if (!w->done.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex_);
    waiters_.erase(reinterpret_cast<const Request*>(message.data())->cookie);
    return Status(StatusCode::kUnavailable, "the link to late peer PE " + std::to_string(pe) +
                                                " was lost before it answered: " + links_.lost_reason(pe));
  }
  if (w->failed) return Status(StatusCode::kInvalidArgument, "late peer PE " + std::to_string(pe) + " refused: " + w->why);
  return Status::ok();
}

Status LinkRma::put(int pe, LinkAddress dst, const void* src, size_t len) {
  Request r{0, dst.offset, len, 0, 0, dst.exposure, dst.segment, 0, 0, 0};
  std::string m = encode(r, src, len);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++puts_pending_[pe];
  }
  Status st = links_.send(pe, kPut, m.data(), m.size());
  if (!st.is_ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    --puts_pending_[pe];
  }
  return st;
}

Status LinkRma::get(int pe, void* dst, LinkAddress src, size_t len) {
  Waiter w;
  w.data = static_cast<char*>(dst);
  w.bytes = len;
  Request r{0, src.offset, len, 0, 0, src.exposure, src.segment, 0, 0, 0};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r.cookie = next_cookie_++;
    waiters_[r.cookie] = &w;
  }
  return request(pe, kGet, encode(r), &w);
}

Result<uint64_t> LinkRma::atomic(int pe, LinkAddress dst, backend::AtomicOp op, unsigned width, uint64_t operand,
                                 uint64_t compare) {
  Waiter w;
  Request r{0, dst.offset, width, operand, compare, dst.exposure, dst.segment, static_cast<uint8_t>(op),
            static_cast<uint8_t>(width), 0};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r.cookie = next_cookie_++;
    waiters_[r.cookie] = &w;
  }
  Status st = request(pe, kAtomic, encode(r), &w);
  if (!st.is_ok()) return st;
  return w.value;
}

Status LinkRma::quiet() {
  // Puts to a peer whose link is lost are never acknowledged: they fail the quiet.
  auto pending = [this] {
    std::lock_guard<std::mutex> lock(mutex_);
    bool any = false;
    for (auto& [pe, n] : puts_pending_) {
      if (n == 0) continue;
      std::string lost = links_.lost_reason(pe);
      if (lost.empty()) {
        any = true;
      } else {
        if (put_error_.empty()) {
          put_error_ = std::to_string(n) + " puts to late peer PE " + std::to_string(pe) + " are lost with its link: " + lost;
        }
        n = 0;
      }
    }
    return any;
  };
  wait_until_([&] { return !pending(); });
  std::lock_guard<std::mutex> lock(mutex_);
  if (put_error_.empty()) return Status::ok();
  Status st(StatusCode::kInvalidArgument, put_error_);
  put_error_.clear();
  return st;
}

// The target: runs the request on its own memory and answers (a put with cookie 0).
void LinkRma::serve(int src_pe, HandlerId id, const char* payload, size_t len) {
  if (len < sizeof(Request)) log::fatal("late peers: a %zu-byte RMA request from PE %d is shorter than its header", len, src_pe);
  Request r;
  std::memcpy(&r, payload, sizeof r);
  const char* data = payload + sizeof r;
  if (id == kPut && len - sizeof r != r.bytes) {
    log::fatal("late peers: a put from PE %d announces %llu bytes and carries %zu", src_pe,
               static_cast<unsigned long long>(r.bytes), len - sizeof r);
  }
  std::string why;
  char* at = resolve_(LinkAddress{r.segment, r.offset, r.exposure}, r.bytes, &why);
  if (at != nullptr && id == kAtomic && (r.width != 4 && r.width != 8)) why = "atomic width " + std::to_string(r.width);
  if (at != nullptr && id == kAtomic && reinterpret_cast<uintptr_t>(at) % r.width != 0) why = "unaligned atomic";
  Reply out{r.cookie, 0, 0, 0};
  std::string tail;
  if (!why.empty() || at == nullptr) {
    out.failed = 1;
    tail = why;
  } else if (id == kPut) {
    std::memcpy(at, data, r.bytes);
  } else if (id == kGet) {
    tail.assign(at, r.bytes);
  } else {
    out.value = cpu_atomic(at, r.width, static_cast<backend::AtomicOp>(r.op), r.operand, r.compare);
  }
  std::string m(reinterpret_cast<const char*>(&out), sizeof out);
  m += tail;
  Status st = links_.send(src_pe, kReply, m.data(), m.size());
  if (!st.is_ok()) GASKET_DEBUG("late peers: answering PE %d failed: %s", src_pe, st.message().c_str());
}

void LinkRma::reply(int src_pe, const char* payload, size_t len) {
  if (len < sizeof(Reply)) log::fatal("late peers: a %zu-byte RMA reply from PE %d is shorter than its header", len, src_pe);
  Reply r;
  std::memcpy(&r, payload, sizeof r);
  std::string tail(payload + sizeof r, len - sizeof r);
  std::lock_guard<std::mutex> lock(mutex_);
  if (r.cookie == 0) {  // a put's acknowledgement
    --puts_pending_[src_pe];
    if (r.failed != 0 && put_error_.empty()) put_error_ = "late peer PE " + std::to_string(src_pe) + " refused a put: " + tail;
    return;
  }
  auto it = waiters_.find(r.cookie);
  if (it == waiters_.end()) log::fatal("late peers: PE %d answered request %llu, which nobody here waits for", src_pe,
                                       static_cast<unsigned long long>(r.cookie));
  Waiter* w = it->second;
  waiters_.erase(it);
  w->failed = r.failed != 0;
  if (w->failed) {
    w->why = tail;
  } else if (w->data != nullptr) {
    if (tail.size() != w->bytes) log::fatal("late peers: PE %d answered a %zu-byte get with %zu bytes", src_pe, w->bytes, tail.size());
    std::memcpy(w->data, tail.data(), tail.size());
  }
  w->value = r.value;
  w->done.store(true, std::memory_order_release);
}

}  // namespace gasket::core::am
