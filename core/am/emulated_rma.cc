#include "core/am/emulated_rma.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

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
struct BlocksRequest {
  uint64_t cookie;
  uint32_t segment;
  uint32_t reply_segment;
  uint64_t offset;
  uint64_t reply_offset;  // the blocks land back to back
  uint64_t stride;
  uint64_t block;
  uint64_t count;
};
struct ScatterRequest {
  uint64_t cookie;
  uint32_t segment;
  uint32_t zone;  // the scatter zone the sender holds here
  uint32_t half;  // of that zone: 0 or 1
  uint32_t reserved;
  uint64_t offset;
  uint64_t stride;
  uint64_t block;
  uint64_t count;  // blocks, back to back in the zone
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
struct ServiceRequest {
  uint64_t cookie;
  uint32_t service;
  uint32_t zone;  // the scatter zone the sender holds here (the input is in half `half`)
  uint32_t half;
  uint32_t reserved;
  uint64_t answer_offset;  // in the sender's internal segment
  uint64_t in_bytes;
  uint64_t out_bytes;
};
struct ZoneClaimRequest {
  uint64_t cookie;
};
struct ZoneRelease {
  uint32_t zone;
  uint32_t reserved;
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

// A blocked request's shape: `count` blocks of `block` bytes `stride` apart at the target span
// `*span` bytes there and pack into `*bytes`; false when empty, overflowing or packed beyond `limit`.
bool block_shape(uint64_t count, uint64_t block, uint64_t stride, uint64_t limit, uint64_t* span, uint64_t* bytes) {
  return count != 0 && block != 0 && !__builtin_mul_overflow(count - 1, stride, span) &&
         !__builtin_add_overflow(*span, block, span) && !__builtin_mul_overflow(count, block, bytes) &&
         *bytes <= limit;
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
      free_get_zones_(layout.zones >= 64 ? ~uint64_t{0} : (uint64_t{1} << layout.zones) - 1),
      zone_holder_(layout.zones, -1) {
  messages_.register_handler(kGetRequest, [this](int src, const void* p, size_t n) { serve_get(src, p, n); });
  messages_.register_handler(kBlocksRequest, [this](int src, const void* p, size_t n) { serve_blocks(src, p, n); });
  messages_.register_handler(kScatterRequest, [this](int src, const void* p, size_t n) { serve_scatter(src, p, n); });
  messages_.register_handler(kAtomicRequest, [this](int src, const void* p, size_t n) { serve_atomic(src, p, n); });
  auto reply = [this](int src, const void* p, size_t n) {
    const Reply& r = decode<Reply>(src, p, n, "a reply");
    complete(src, r.cookie, r.value);
  };
  messages_.register_handler(kGetReply, reply);
  messages_.register_handler(kAtomicReply, reply);
  messages_.register_handler(kScatterReply, reply);
  messages_.register_handler(kServiceRequest, [this](int src, const void* p, size_t n) { serve_service(src, p, n); });
  messages_.register_handler(kServiceReply, reply);
  messages_.register_handler(kZoneClaim, [this](int src, const void* p, size_t n) { serve_zone_claim(src, p, n); });
  messages_.register_handler(kZoneRelease, [this](int src, const void* p, size_t n) { serve_zone_release(src, p, n); });
}

// ---- zones ----

class EmulatedRma::GetZone {
 public:
  explicit GetZone(EmulatedRma& rma) : rma_(rma), zone_(rma.claim_get_zone()) {}
  ~GetZone() { rma_.release_get_zone(zone_); }
  GetZone(const GetZone&) = delete;
  GetZone& operator=(const GetZone&) = delete;
  uint64_t offset() const { return rma_.layout_.get_zone_offset(zone_); }
  char* landed() const { return rma_.internal_base_ + offset(); }

 private:
  EmulatedRma& rma_;
  size_t zone_;
};

size_t EmulatedRma::claim_get_zone() {
  size_t zone = 0;
  auto claimed = [this, &zone] {
    uint64_t free = free_get_zones_.load(std::memory_order_relaxed);
    while (free != 0) {
      zone = static_cast<size_t>(__builtin_ctzll(free));
      if (free_get_zones_.compare_exchange_weak(free, free & ~(uint64_t{1} << zone), std::memory_order_acquire,
                                                std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  };
  if (!claimed()) wait_until_(claimed);  // another thread's operation frees one as its reply arrives
  return zone;
}

void EmulatedRma::release_get_zone(size_t zone) {
  free_get_zones_.fetch_or(uint64_t{1} << zone, std::memory_order_release);
}

class EmulatedRma::ScatterZone {
 public:
  ScatterZone(EmulatedRma& rma, int pe) : rma_(rma), pe_(pe) {}
  ~ScatterZone() {
    if (!held_) return;
    ZoneRelease release{zone_, 0};
    Status st = rma_.messages_.send(pe_, kZoneRelease, &release, sizeof release);
    if (!st.is_ok()) log::fatal("am: releasing scatter zone %u of PE %d failed: %s", zone_, pe_, st.message().c_str());
  }
  ScatterZone(const ScatterZone&) = delete;
  ScatterZone& operator=(const ScatterZone&) = delete;
  Status claim() {
    Result<uint32_t> zone = rma_.claim_scatter_zone(pe_);
    if (!zone.is_ok()) return zone.status();
    zone_ = zone.value();
    held_ = true;
    return Status::ok();
  }
  uint32_t zone() const { return zone_; }
  uint64_t offset() const { return rma_.layout_.scatter_zone_offset(zone_); }

 private:
  EmulatedRma& rma_;
  int pe_;
  uint32_t zone_ = 0;
  bool held_ = false;
};

Result<uint32_t> EmulatedRma::claim_scatter_zone(int pe) {
  Waiter w;
  ZoneClaimRequest req{track(&w)};
  Status st = messages_.send(pe, kZoneClaim, &req, sizeof req);
  if (!st.is_ok()) return st;
  wait(req.cookie, &w);
  return static_cast<uint32_t>(w.value);
}

void EmulatedRma::grant_zone(int src_pe, uint64_t cookie, uint32_t zone) {
  Reply reply{cookie, zone};
  Status st = messages_.send(src_pe, kScatterReply, &reply, sizeof reply);
  if (!st.is_ok()) log::fatal("am: granting scatter zone %u to PE %d failed: %s", zone, src_pe, st.message().c_str());
}

void EmulatedRma::serve_zone_claim(int src_pe, const void* payload, size_t len) {
  const ZoneClaimRequest& req = decode<ZoneClaimRequest>(src_pe, payload, len, "a zone claim");
  int zone = -1;
  {
    std::lock_guard<std::mutex> lock(zones_mutex_);
    for (size_t z = 0; z < zone_holder_.size() && zone < 0; ++z) {
      if (zone_holder_[z] < 0) {
        zone_holder_[z] = src_pe;
        zone = static_cast<int>(z);
      }
    }
    if (zone < 0) zone_claims_.push_back(ZoneClaim{src_pe, req.cookie});  // granted at a release
  }
  if (zone >= 0) grant_zone(src_pe, req.cookie, static_cast<uint32_t>(zone));
}

void EmulatedRma::serve_zone_release(int src_pe, const void* payload, size_t len) {
  const ZoneRelease& req = decode<ZoneRelease>(src_pe, payload, len, "a zone release");
  ZoneClaim next{-1, 0};
  {
    std::lock_guard<std::mutex> lock(zones_mutex_);
    if (req.zone >= zone_holder_.size() || zone_holder_[req.zone] != src_pe) {
      log::fatal("am: PE %d released scatter zone %u of PE %d, which it does not hold (%zu zones)", src_pe, req.zone,
                 my_pe_, zone_holder_.size());
    }
    zone_holder_[req.zone] = -1;
    if (!zone_claims_.empty()) {
      next = zone_claims_.front();
      zone_claims_.pop_front();
      zone_holder_[req.zone] = next.pe;
    }
  }
  if (next.pe >= 0) grant_zone(next.pe, next.cookie, req.zone);
}

char* EmulatedRma::scatter_landing(int src_pe, uint32_t zone, uint32_t half, const char* what) {
  std::lock_guard<std::mutex> lock(zones_mutex_);
  if (zone >= zone_holder_.size() || zone_holder_[zone] != src_pe || half > 1) {
    log::fatal("am: %s from PE %d names half %u of scatter zone %u of PE %d, which it does not hold (%zu zones)", what,
               src_pe, half, zone, my_pe_, zone_holder_.size());
  }
  return internal_base_ + layout_.scatter_zone_offset(zone) + half * max_gathered_block();
}

void EmulatedRma::set_service(unsigned id, Service fn) {
  if (id >= kServices) log::fatal("am: service id %u is not below %u", id, kServices);
  std::lock_guard<std::mutex> lock(services_mutex_);
  services_[id] = std::move(fn);
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
  // Straight into the destination when it is remotely writable here, else through a get zone.
  segments::Translation t = segments_.translate(dst, len);
  const bool direct = t.segment != nullptr && t.in_bounds;
  std::optional<GetZone> zone;
  if (!direct) zone.emplace(*this);
  size_t piece = direct ? len : layout_.bounce_bytes;
  for (size_t done = 0; done < len;) {
    size_t n = len - done < piece ? len - done : piece;
    Waiter w;
    GetRequest req{track(&w), src.segment, direct ? t.segment->id : segments::kInternalSegment, src.offset + done,
                   direct ? t.offset + done : zone->offset(), n};
    Status st = messages_.send(pe, kGetRequest, &req, sizeof req);
    if (!st.is_ok()) return st;
    wait(req.cookie, &w);
    if (n <= kShortGetBytes) {  // the target answered with the bytes in the reply (serve_get)
      std::memcpy(static_cast<char*>(dst) + done, &w.value, n);
    } else if (!direct) {
      std::memcpy(static_cast<char*>(dst) + done, zone->landed(), n);
    }
    done += n;
  }
  return Status::ok();
}

Status EmulatedRma::get_blocks(int pe, void* dst, size_t dst_step, backend::RemoteAddress src, size_t src_step,
                               size_t block, size_t count) {
  const size_t half = max_gathered_block();
  auto* d = static_cast<char*>(dst);
  if (block > half) {
    for (size_t i = 0; i < count; ++i) {
      Status st = get(pe, d + i * dst_step, backend::RemoteAddress{src.segment, src.offset + i * src_step}, block);
      if (!st.is_ok()) return st;
    }
    return Status::ok();
  }
  // Two halves of the zone, each a request in flight: while one's blocks are scattered the other's travel.
  struct Request {
    Waiter w;
    size_t first = 0, n = 0;
  } halves[2];
  GetZone zone(*this);
  const uint64_t zone_offset = zone.offset();
  size_t next = 0;  // the first block not yet requested
  auto request = [&](int h) {
    Request& r = halves[h];
    r.first = next;
    r.n = std::min(half / block, count - next);
    next += r.n;
    r.w.done.store(false, std::memory_order_relaxed);
    BlocksRequest req{track(&r.w), src.segment, segments::kInternalSegment, src.offset + r.first * src_step,
                      zone_offset + static_cast<uint64_t>(h) * half, src_step, block, r.n};
    return messages_.send(pe, kBlocksRequest, &req, sizeof req);
  };
  for (int h = 0; h < 2 && next < count; ++h) {
    Status st = request(h);
    if (!st.is_ok()) return st;
  }
  for (int h = 0; halves[h].n != 0; h ^= 1) {  // the older request is always the other half's
    Request& r = halves[h];
    wait(0, &r.w);
    const char* landed = internal_base_ + zone_offset + static_cast<uint64_t>(h) * half;
    for (size_t i = 0; i < r.n; ++i) std::memcpy(d + (r.first + i) * dst_step, landed + i * block, block);
    r.n = 0;
    if (next < count) {
      Status st = request(h);
      if (!st.is_ok()) return st;
    }
  }
  return Status::ok();
}

Status EmulatedRma::put_blocks(int pe, backend::RemoteAddress dst, size_t dst_step, const void* src, size_t src_step,
                               size_t block, size_t count) {
  if (dst_step == block && src_step == block) return put_in_pieces(backend_, pe, dst, src, count * block);
  const size_t half = max_gathered_block();
  const size_t per_request = half / block;
  const auto* s = static_cast<const char*>(src);
  // Packs blocks [first, first + n) back to back (a backend put leaves its source reusable on return).
  std::vector<char> packed(std::min(count, per_request) * block);
  auto pack = [&](size_t first, size_t n) {
    for (size_t i = 0; i < n; ++i) std::memcpy(&packed[i * block], s + (first + i) * src_step, block);
  };
  if (dst_step == block) {  // adjacent at the target: no scatter needed
    for (size_t first = 0; first < count; first += per_request) {
      size_t n = std::min(per_request, count - first);
      pack(first, n);
      Status st = put_in_pieces(backend_, pe, backend::RemoteAddress{dst.segment, dst.offset + first * block},
                                packed.data(), n * block);
      if (!st.is_ok()) return st;
    }
    return Status::ok();
  }
  struct Request {
    Waiter w;
    bool in_flight = false;
  } halves[2];
  ScatterZone zone(*this, pe);
  Status claimed = zone.claim();
  if (!claimed.is_ok()) return claimed;
  const uint64_t zone_offset = zone.offset();
  for (size_t first = 0, h = 0; first < count; h ^= 1) {
    Request& r = halves[h];
    if (r.in_flight) wait(0, &r.w);  // its blocks are scattered: the half is free again
    const size_t n = std::min(per_request, count - first);
    pack(first, n);
    Status st = put_in_pieces(backend_, pe, backend::RemoteAddress{segments::kInternalSegment, zone_offset + h * half},
                              packed.data(), n * block);
    if (st.is_ok()) st = backend_.fence();  // the blocks land before the request that announces them
    if (!st.is_ok()) return st;
    r.w.done.store(false, std::memory_order_relaxed);
    r.in_flight = true;
    ScatterRequest req{track(&r.w), dst.segment, zone.zone(), static_cast<uint32_t>(h), 0, dst.offset + first * dst_step,
                       dst_step, block, n};
    if (!(st = messages_.send(pe, kScatterRequest, &req, sizeof req)).is_ok()) return st;
    first += n;
  }
  for (Request& r : halves) {
    if (r.in_flight) wait(0, &r.w);
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

Status EmulatedRma::call_service(int pe, unsigned id, ServiceCall* calls, size_t n, bool last_alone) {
  const size_t half = max_gathered_block();
  for (size_t i = 0; i < n; ++i) {
    calls[i].status = kNotRun;
    if (calls[i].in_len > half || calls[i].out_len > half) {
      return Status(StatusCode::kInvalidArgument,
                    "am: service " + std::to_string(id) + " call " + std::to_string(i) + " to PE " + std::to_string(pe) +
                        " has " + std::to_string(calls[i].in_len) + " input and " + std::to_string(calls[i].out_len) +
                        " answer bytes (at most " + std::to_string(half) + " each)");
    }
  }
  struct Request {
    Waiter w;
    size_t call = 0;
    bool in_flight = false;
  } halves[2];
  // This PE's get zone first, then the target's scatter zone (every operation in that order).
  GetZone answers(*this);
  ScatterZone inputs(*this, pe);
  Status claimed = inputs.claim();
  if (!claimed.is_ok()) return claimed;
  const uint64_t in_zone = inputs.offset(), out_zone = answers.offset();
  bool failed = false;
  auto finish = [&](size_t h) {
    Request& r = halves[h];
    if (!r.in_flight) return;
    wait(0, &r.w);
    r.in_flight = false;
    ServiceCall& c = calls[r.call];
    c.status = r.w.value;
    if (c.out_len > 0) std::memcpy(c.out, internal_base_ + out_zone + h * half, c.out_len);
    failed = failed || c.status != 0;
  };
  for (size_t i = 0, h = 0; i < n; ++i, h ^= 1) {
    finish(h);  // the half's previous call is answered: the half is free again
    if (last_alone && i + 1 == n) finish(h ^ 1);
    if (failed) break;
    Status st = put_in_pieces(backend_, pe, backend::RemoteAddress{segments::kInternalSegment, in_zone + h * half},
                              calls[i].in, calls[i].in_len);
    if (st.is_ok()) st = backend_.fence();  // the input lands before the request that announces it
    if (!st.is_ok()) return st;
    Request& r = halves[h];
    r.w.done.store(false, std::memory_order_relaxed);
    r.call = i;
    r.in_flight = true;
    ServiceRequest req{track(&r.w), id, inputs.zone(), static_cast<uint32_t>(h), 0, out_zone + h * half,
                       calls[i].in_len, calls[i].out_len};
    if (!(st = messages_.send(pe, kServiceRequest, &req, sizeof req)).is_ok()) return st;
  }
  for (size_t h = 0; h < 2; ++h) finish(h);
  return Status::ok();
}

char* EmulatedRma::local_address(int src_pe, uint32_t segment, uint64_t offset, uint64_t len, const char* what) {
  const segments::Segment* seg = segments_.find(segment);
  if (seg == nullptr || offset > seg->size || len > seg->size - offset) {
    log::fatal("am: %s from PE %d for segment %u offset %llu + %llu bytes is outside this PE's segments", what, src_pe,
               segment, static_cast<unsigned long long>(offset), static_cast<unsigned long long>(len));
  }
  return seg->base + offset;
}

void EmulatedRma::answer_get(int src_pe, uint64_t cookie, const char* from, uint64_t bytes, uint32_t segment,
                             uint64_t offset) {
  Status st = put_in_pieces(backend_, src_pe, backend::RemoteAddress{segment, offset}, from, bytes);
  if (st.is_ok()) st = backend_.fence();  // the data lands before the reply that announces it
  Reply reply{cookie, 0};
  if (st.is_ok()) st = messages_.send(src_pe, kGetReply, &reply, sizeof reply);
  if (!st.is_ok()) log::fatal("am: answering PE %d's get of %llu bytes failed: %s", src_pe,
                              static_cast<unsigned long long>(bytes), st.message().c_str());
}

void EmulatedRma::serve_get(int src_pe, const void* payload, size_t len) {
  const GetRequest& req = decode<GetRequest>(src_pe, payload, len, "a get request");
  const char* from = local_address(src_pe, req.segment, req.offset, req.bytes, "a get request");
  if (req.bytes <= kShortGetBytes) {  // every request this short (a short get, a get's last piece)
    Reply reply{req.cookie, 0};
    std::memcpy(&reply.value, from, req.bytes);
    Status st = messages_.send(src_pe, kGetReply, &reply, sizeof reply);
    if (!st.is_ok()) log::fatal("am: answering PE %d's get of %llu bytes failed: %s", src_pe,
                                static_cast<unsigned long long>(req.bytes), st.message().c_str());
    return;
  }
  answer_get(src_pe, req.cookie, from, req.bytes, req.reply_segment, req.reply_offset);
}

void EmulatedRma::serve_blocks(int src_pe, const void* payload, size_t len) {
  const BlocksRequest& req = decode<BlocksRequest>(src_pe, payload, len, "a blocked get request");
  uint64_t span = 0, bytes = 0;
  if (!block_shape(req.count, req.block, req.stride, layout_.bounce_bytes, &span, &bytes)) {
    log::fatal("am: blocked get request from PE %d has %llu blocks of %llu bytes at stride %llu", src_pe,
               static_cast<unsigned long long>(req.count), static_cast<unsigned long long>(req.block),
               static_cast<unsigned long long>(req.stride));
  }
  const char* from = local_address(src_pe, req.segment, req.offset, span, "a blocked get request");
  if (req.stride != req.block) {  // adjacent blocks go as they are
    gathered_.resize(std::max<size_t>(gathered_.size(), bytes));
    for (uint64_t i = 0; i < req.count; ++i) std::memcpy(&gathered_[i * req.block], from + i * req.stride, req.block);
    from = gathered_.data();
  }
  answer_get(src_pe, req.cookie, from, bytes, req.reply_segment, req.reply_offset);
}

void EmulatedRma::serve_scatter(int src_pe, const void* payload, size_t len) {
  const ScatterRequest& req = decode<ScatterRequest>(src_pe, payload, len, "a blocked put request");
  const uint64_t half = max_gathered_block();
  uint64_t span = 0, bytes = 0;
  const char* landed = scatter_landing(src_pe, req.zone, req.half, "a blocked put request");
  if (!block_shape(req.count, req.block, req.stride, half, &span, &bytes)) {
    log::fatal("am: blocked put request from PE %d has %llu blocks of %llu bytes at stride %llu in half %u of its zone",
               src_pe, static_cast<unsigned long long>(req.count), static_cast<unsigned long long>(req.block),
               static_cast<unsigned long long>(req.stride), req.half);
  }
  char* to = local_address(src_pe, req.segment, req.offset, span, "a blocked put request");
  for (uint64_t i = 0; i < req.count; ++i) std::memcpy(to + i * req.stride, landed + i * req.block, req.block);
  Reply reply{req.cookie, 0};
  Status st = messages_.send(src_pe, kScatterReply, &reply, sizeof reply);
  if (!st.is_ok()) log::fatal("am: answering PE %d's blocked put failed: %s", src_pe, st.message().c_str());
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

void EmulatedRma::serve_service(int src_pe, const void* payload, size_t len) {
  const ServiceRequest& req = decode<ServiceRequest>(src_pe, payload, len, "a service request");
  const uint64_t half = max_gathered_block();
  if (req.in_bytes > half || req.out_bytes > half || req.service >= kServices) {
    log::fatal("am: service request from PE %d names service %u with %llu input and %llu answer bytes in half %u "
               "of its zone (services below %u, at most %llu bytes)", src_pe, req.service,
               static_cast<unsigned long long>(req.in_bytes), static_cast<unsigned long long>(req.out_bytes), req.half,
               kServices, static_cast<unsigned long long>(half));
  }
  Service service;
  {
    std::lock_guard<std::mutex> lock(services_mutex_);
    service = services_[req.service];
  }
  if (!service) log::fatal("am: PE %d asked for service %u, which PE %d has not installed", src_pe, req.service, my_pe_);
  const char* in = scatter_landing(src_pe, req.zone, req.half, "a service request");
  answer_.resize(std::max<size_t>(answer_.size(), req.out_bytes));
  Reply reply{req.cookie, service(src_pe, in, req.in_bytes, answer_.data(), req.out_bytes)};
  Status st = Status::ok();
  if (req.out_bytes > 0) {
    st = put_in_pieces(backend_, src_pe,
                       backend::RemoteAddress{segments::kInternalSegment, req.answer_offset},
                       answer_.data(), req.out_bytes);
    if (st.is_ok()) st = backend_.fence();  // the answer lands before the reply that announces it
  }
  if (st.is_ok()) st = messages_.send(src_pe, kServiceReply, &reply, sizeof reply);
  if (!st.is_ok()) log::fatal("am: answering PE %d's service %u request failed: %s", src_pe, req.service,
                              st.message().c_str());
}

}  // namespace gasket::core::am
