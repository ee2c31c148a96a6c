#include "core/am/emulated_rma.h"

#include <cstring>

#include "core/am/cpu_atomic.h"
#include "core/base/log.h"

namespace gasket::core::am {

namespace {
struct GetRequest {
  uint64_t cookie;
  uint32_t segment;
  uint32_t reply_segment;
  uint64_t offset;
  uint64_t reply_offset;
  uint64_t bytes;
};
struct AtomicRequest {
  uint64_t cookie;
  uint32_t segment;
  uint8_t op;
  uint8_t width;
  uint16_t reserved;
  uint64_t offset;
  uint64_t operand;
  uint64_t compare;
};
struct Reply {
  uint64_t cookie;
  uint64_t value;
};

template <typename T>
const T& decode(int src_pe, const void* payload, size_t len, const char* what) {
  if (len != sizeof(T)) log::fatal("am: %s from PE %d has %zu bytes, not %zu", what, src_pe, len, sizeof(T));
  return *static_cast<const T*>(payload);
}
}  // namespace

Status put_in_pieces(backend::Backend& backend, int pe, backend::RemoteAddress dst, const void* src, size_t len) {
  size_t chunk = backend.limits().max_put_bytes;
  const char* p = static_cast<const char*>(src);
  while (len > 0) {
    size_t n = len < chunk ? len : chunk;
    Status st = backend.put(pe, dst, p, n);
    if (!st.is_ok()) return st;
    p += n;
    dst.offset += n;
    len -= n;
  }
  return Status::ok();
}

EmulatedRma::EmulatedRma(MessageLayer& messages, backend::Backend& backend, const segments::SegmentTable& segments,
                         char* internal_base, const MailboxLayout& layout, int my_pe, WaitUntil wait_until)
    : messages_(messages),
      backend_(backend),
      segments_(segments),
      internal_base_(internal_base),
      layout_(layout),
      my_pe_(my_pe),
      wait_until_(std::move(wait_until)),
      bounce_mutex_(new std::mutex[static_cast<size_t>(layout.n_pes)]) {
  messages_.register_handler(kGetRequest, [this](int src, const void* p, size_t n) { serve_get(src, p, n); });
  messages_.register_handler(kAtomicRequest, [this](int src, const void* p, size_t n) { serve_atomic(src, p, n); });
  auto reply = [this](int src, const void* p, size_t n) {
    const Reply& r = decode<Reply>(src, p, n, "a reply");
    complete(src, r.cookie, r.value);
  };
  messages_.register_handler(kGetReply, reply);
  messages_.register_handler(kAtomicReply, reply);
}

uint64_t EmulatedRma::track(Waiter* w) {
  std::lock_guard<std::mutex> lock(waiters_mutex_);
  uint64_t cookie = next_cookie_++;
  waiters_[cookie] = w;
  return cookie;
}

void EmulatedRma::wait(uint64_t cookie, Waiter* w) {
  wait_until_([w] { return w->done.load(std::memory_order_acquire); });
}

void EmulatedRma::complete(int src_pe, uint64_t cookie, uint64_t value) {
  Waiter* w = nullptr;
  {
    std::lock_guard<std::mutex> lock(waiters_mutex_);
    auto it = waiters_.find(cookie);
    if (it != waiters_.end()) {
      w = it->second;
      waiters_.erase(it);
    }
  }
  if (w == nullptr) log::fatal("am: PE %d replied to request %llu, which nobody here is waiting for", src_pe,
                               static_cast<unsigned long long>(cookie));
  w->value = value;
  w->done.store(true, std::memory_order_release);
}

Status EmulatedRma::get(int pe, void* dst, backend::RemoteAddress src, size_t len) {
  // Straight into the destination when it is remotely writable here, else through the bounce zone.
  segments::Translation t = segments_.translate(dst, len);
  const bool direct = t.segment != nullptr && t.in_bounds;
  std::unique_lock<std::mutex> zone(bounce_mutex_[pe], std::defer_lock);
  if (!direct) zone.lock();
  size_t piece = direct ? len : layout_.bounce_bytes;
  for (size_t done = 0; done < len;) {
    size_t n = len - done < piece ? len - done : piece;
    Waiter w;
    GetRequest req{track(&w), src.segment, direct ? t.segment->id : segments::kInternalSegment, src.offset + done,
                   direct ? t.offset + done : layout_.bounce_offset(pe), n};
    Status st = messages_.send(pe, kGetRequest, &req, sizeof req);
    if (!st.is_ok()) return st;
    wait(req.cookie, &w);
    if (!direct) std::memcpy(static_cast<char*>(dst) + done, internal_base_ + layout_.bounce_offset(pe), n);
    done += n;
  }
  return Status::ok();
}

Result<uint64_t> EmulatedRma::atomic(int pe, backend::RemoteAddress dst, backend::AtomicOp op, unsigned width,
                                     uint64_t operand, uint64_t compare) {
  Waiter w;
  AtomicRequest req{track(&w), dst.segment, static_cast<uint8_t>(op), static_cast<uint8_t>(width), 0, dst.offset,
                    operand, compare};
  Status st = messages_.send(pe, kAtomicRequest, &req, sizeof req);
  if (!st.is_ok()) return st;
  wait(req.cookie, &w);
  return w.value;
}

char* EmulatedRma::local_address(int src_pe, uint32_t segment, uint64_t offset, uint64_t len, const char* what) {
  const segments::Segment* seg = segments_.find(segment);
  if (seg == nullptr || offset > seg->size || len > seg->size - offset) {
    log::fatal("am: %s from PE %d for segment %u offset %llu + %llu bytes is outside this PE's segments", what, src_pe,
               segment, static_cast<unsigned long long>(offset), static_cast<unsigned long long>(len));
  }
  return seg->base + offset;
}

void EmulatedRma::serve_get(int src_pe, const void* payload, size_t len) {
  const GetRequest& req = decode<GetRequest>(src_pe, payload, len, "a get request");
  const char* from = local_address(src_pe, req.segment, req.offset, req.bytes, "a get request");
  Status st = put_in_pieces(backend_, src_pe, backend::RemoteAddress{req.reply_segment, req.reply_offset}, from, req.bytes);
  if (st.is_ok()) st = backend_.fence();  // the data lands before the reply that announces it
  Reply reply{req.cookie, 0};
  if (st.is_ok()) st = messages_.send(src_pe, kGetReply, &reply, sizeof reply);
  if (!st.is_ok()) log::fatal("am: answering PE %d's get of %llu bytes failed: %s", src_pe,
                              static_cast<unsigned long long>(req.bytes), st.message().c_str());
}

void EmulatedRma::serve_atomic(int src_pe, const void* payload, size_t len) {
  const AtomicRequest& req = decode<AtomicRequest>(src_pe, payload, len, "an atomic request");
  if ((req.width != 4 && req.width != 8) || req.op >= static_cast<uint8_t>(backend::AtomicOp::kCount) ||
      req.offset % req.width != 0) {
    log::fatal("am: atomic request from PE %d has op %u, width %u, offset %llu", src_pe, req.op, req.width,
               static_cast<unsigned long long>(req.offset));
  }
  char* p = local_address(src_pe, req.segment, req.offset, req.width, "an atomic request");
  auto op = static_cast<backend::AtomicOp>(req.op);
  Reply reply{req.cookie, 0};
  if (unshared_lock_ != nullptr && !segments_.find(req.segment)->file_backed) {
    // Same-node peers update this segment by kernel-copy read-modify-writes under the lock.
    WordLock held(unshared_lock_, static_cast<uint64_t>(my_pe_) + 1, lock_spin_count_);
    reply.value = cpu_atomic(p, req.width, op, req.operand, req.compare);
  } else {
    reply.value = cpu_atomic(p, req.width, op, req.operand, req.compare);
  }
  Status st = messages_.send(src_pe, kAtomicReply, &reply, sizeof reply);
  if (!st.is_ok()) log::fatal("am: answering PE %d's atomic failed: %s", src_pe, st.message().c_str());
}

}  // namespace gasket::core::am
