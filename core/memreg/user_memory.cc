#include "core/memreg/user_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/am/emulated_rma.h"
#include "core/base/log.h"

namespace gasket::memreg {

namespace {

constexpr uint32_t kDescriptorMagic = 0x47585031;  // "GXP1"

// The descriptor's fixed part; the backend's packed key (key_bytes) follows.
struct DescriptorHeader {
  uint32_t magic;
  uint32_t key_bytes;
  int32_t owner_pe;
  int32_t owner_pid;
  uint64_t exposure;
  uint64_t address;         // the exposed range in the owner's address space
  uint64_t length;
  uint32_t segment;         // the owner's user segment holding it (0: not registered)
  uint32_t reserved;
  uint64_t segment_base;    // that segment in the owner
  uint64_t segment_size;
};

// Channel layout (see user_memory.h): request slots, completion words, then four stages.
struct RequestSlot {
  uint64_t seq;  // written last
  uint64_t op;
  uint64_t exposure;
  uint64_t offset;
  uint64_t length;
  uint64_t unused[3];
};
constexpr size_t kRequestOffset = 0;             // RequestSlot[2]
constexpr size_t kDoneOffset = 2 * sizeof(RequestSlot);  // uint64_t[2]: seq << 8 | status
constexpr size_t kChannelHeaderBytes = 256;
static_assert(kDoneOffset + 2 * sizeof(uint64_t) <= kChannelHeaderBytes, "channel header");

constexpr uint64_t kStatusOk = 0, kStatusRefused = 1;

size_t round_stage(size_t stage_bytes) {
  size_t s = std::max<size_t>(stage_bytes, 4096);
  return (s + 63) & ~size_t{63};
}

size_t stage_in(size_t stage_bytes, int stage) {
  return kChannelHeaderBytes + static_cast<size_t>(stage) * stage_bytes;
}
size_t stage_out(size_t stage_bytes, int stage) {
  return kChannelHeaderBytes + static_cast<size_t>(2 + stage) * stage_bytes;
}

}  // namespace

struct UserMemory::Descriptor {
  DescriptorHeader header;
  const char* key;
};

// Registrations of the cache made with the backend's UserRegistration; keeps each packed key for
// the descriptors of the exposures it covers.
class UserMemory::BackendRegistrar final : public Registrar {
 public:
  explicit BackendRegistrar(backend::UserRegistration& backend) : backend_(backend) {}
  Status register_range(segments::SegmentId id, void* base, size_t size) override {
    std::string key;
    Status st = backend_.register_user(id, base, size, &key);
    if (!st.is_ok()) return st;
    std::lock_guard<std::mutex> lock(mutex_);
    keys_[id] = std::move(key);
    return Status::ok();
  }
  Status deregister_range(segments::SegmentId id) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      keys_.erase(id);
    }
    return backend_.deregister_user(id);
  }
  std::string key(segments::SegmentId id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = keys_.find(id);
    return it == keys_.end() ? std::string() : it->second;
  }

 private:
  backend::UserRegistration& backend_;
  mutable std::mutex mutex_;
  std::map<segments::SegmentId, std::string> keys_;
};

size_t UserMemory::bounce_segment_bytes(int n_pes, size_t stage_bytes) {
  size_t bytes = static_cast<size_t>(n_pes) * (kChannelHeaderBytes + 4 * round_stage(stage_bytes));
  return (bytes + 4095) & ~size_t{4095};
}

UserMemory::UserMemory(UserMemoryOptions options)
    : options_(std::move(options)),
      channel_bytes_(kChannelHeaderBytes + 4 * round_stage(options_.stage_bytes)),
      bounce_(options_.segments->find(segments::kBounceSegment)),
      kernel_(options_.my_pe, std::vector<pid_t>(static_cast<size_t>(options_.n_pes), 0)),
      refused_(static_cast<size_t>(options_.n_pes), false),
      peer_mutex_(new std::mutex[static_cast<size_t>(options_.n_pes)]),
      next_seq_(static_cast<size_t>(options_.n_pes), 0) {
  options_.stage_bytes = round_stage(options_.stage_bytes);
  bounce_base_ = bounce_->base;
  for (int s = 0; s < 2; ++s) {
    last_seq_[s].assign(static_cast<size_t>(options_.n_pes), 0);
    served_[s].assign(static_cast<size_t>(options_.n_pes), 0);
  }
  bool backend_peers = std::find(options_.direct.begin(), options_.direct.end(), false) != options_.direct.end();
  registration_ = backend_peers && options_.backend != nullptr ? options_.backend->user_registration() : nullptr;
  if (registration_ == nullptr) return;
  registrar_ = std::make_unique<BackendRegistrar>(*registration_);
  cache_ = std::make_unique<RegistrationCache>(*registrar_, options_.cache_limit, segments::kFirstUserSegment);
  Status st = cache_->watch_unmaps();
  if (!st.is_ok()) {
    // Without the unmap hooks a cached registration could outlive its memory: cache nothing.
    GASKET_WARN("%s: user memory is registered at each expose and deregistered at its release", st.message().c_str());
    cache_ = std::make_unique<RegistrationCache>(*registrar_, 0, segments::kFirstUserSegment);
  }
}

UserMemory::~UserMemory() {
  cache_.reset();  // deregisters what it still holds, before the backend goes
}

char* UserMemory::own_channel(int peer) const { return bounce_base_ + channel_offset(peer); }

// ---- owner side ----

Result<Exposure> UserMemory::expose(const void* addr, size_t len, const char* call) {
  if (addr == nullptr && len > 0) {
    return invalid_argument(std::string(call) + ": PE " + std::to_string(options_.my_pe) + " exposes " +
                            std::to_string(len) + " bytes at a null address");
  }
  Live live{reinterpret_cast<uintptr_t>(addr), len, false, {}};
  std::string key;
  if (cache_ && len > 0) {
    Result<Registration> reg = cache_->acquire(addr, len, call);
    if (!reg.is_ok()) return reg.status();
    live.registered = true;
    live.registration = reg.value();
    key = registrar_->key(reg->id);
  }
  DescriptorHeader h{};
  h.magic = kDescriptorMagic;
  h.key_bytes = static_cast<uint32_t>(key.size());
  h.owner_pe = options_.my_pe;
  h.owner_pid = static_cast<int32_t>(getpid());
  h.address = live.address;
  h.length = len;
  if (live.registered) {
    h.segment = live.registration.id;
    h.segment_base = reinterpret_cast<uintptr_t>(live.registration.base);
    h.segment_size = live.registration.size;
  }
  Exposure e;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    e.id = h.exposure = ++next_exposure_;
    exposures_.emplace(e.id, live);
  }
  ever_exposed_.store(true, std::memory_order_release);
  n_exposures_.fetch_add(1, std::memory_order_relaxed);
  e.address = addr;
  e.length = len;
  e.descriptor.assign(reinterpret_cast<const char*>(&h), sizeof h);
  e.descriptor += key;
  return e;
}

Status UserMemory::release(const Exposure& exposure, const char* call) {
  Live live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = exposures_.find(exposure.id);
    if (it == exposures_.end()) {
      return invalid_argument(std::string(call) + ": PE " + std::to_string(options_.my_pe) + " has no exposure #" +
                              std::to_string(exposure.id) + " (released twice, or never exposed)");
    }
    live = it->second;
    exposures_.erase(it);
  }
  return live.registered ? cache_->release(live.registration, call) : Status::ok();
}

void UserMemory::serve() {
  if (!ever_exposed_.load(std::memory_order_acquire)) return;
  std::unique_lock<std::mutex> lock(serve_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is serving
  for (int peer = 0; peer < options_.n_pes; ++peer) {
    if (peer == options_.my_pe) continue;
    for (int stage = 0; stage < 2; ++stage) {
      auto* slot = reinterpret_cast<RequestSlot*>(own_channel(peer) + kRequestOffset) + stage;
      if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != served_[stage][static_cast<size_t>(peer)]) {
        serve_request(peer, stage);
      }
    }
  }
}

void UserMemory::serve_request(int peer, int stage) {
  char* channel = own_channel(peer);
  const auto* slot = reinterpret_cast<const RequestSlot*>(channel + kRequestOffset) + stage;
  const uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
  const uint64_t op = slot->op, exposure = slot->exposure, offset = slot->offset, length = slot->length;
  const bool valid_op = op == static_cast<uint64_t>(Op::kPut) || op == static_cast<uint64_t>(Op::kGet);
  char* address = valid_op && length <= options_.stage_bytes ? exposed_range(exposure, offset, length) : nullptr;
  uint64_t status = kStatusOk;
  Status st = Status::ok();
  if (address == nullptr) {
    status = kStatusRefused;
    GASKET_WARN("memreg: PE %d asked PE %d to %s %llu bytes at offset %llu of exposure #%llu, which is not a live "
                "exposure of that size: refused", peer, options_.my_pe, op == static_cast<uint64_t>(Op::kGet) ? "get" : "put",
                static_cast<unsigned long long>(length), static_cast<unsigned long long>(offset),
                static_cast<unsigned long long>(exposure));
  } else if (op == static_cast<uint64_t>(Op::kPut)) {
    std::memcpy(address, channel + stage_in(options_.stage_bytes, stage), length);
  } else {
    st = write_to(peer, channel_offset(options_.my_pe) + stage_out(options_.stage_bytes, stage), address, length);
  }
  if (st.is_ok()) st = publish(peer, channel_offset(options_.my_pe) + kDoneOffset + sizeof(uint64_t) * static_cast<size_t>(stage), (seq << 8) | status);
  if (!st.is_ok()) {
    log::fatal("memreg: PE %d answering PE %d's bounce request %llu failed: %s", options_.my_pe, peer,
               static_cast<unsigned long long>(seq), st.message().c_str());
  }
  served_[stage][static_cast<size_t>(peer)] = seq;
  bounce_served_.fetch_add(1, std::memory_order_relaxed);
}

// ---- bounce segment access ----

Status UserMemory::write_to(int pe, size_t bounce_offset, const void* src, size_t len) {
  if (options_.direct[static_cast<size_t>(pe)]) {
    std::memcpy(bounce_->peer_base[static_cast<size_t>(pe)] + bounce_offset, src, len);
    return Status::ok();
  }
  return core::am::put_in_pieces(*options_.backend, pe, backend::RemoteAddress{segments::kBounceSegment, bounce_offset},
                                 src, len);
}

Status UserMemory::publish(int pe, size_t bounce_offset, uint64_t value) {
  if (options_.direct[static_cast<size_t>(pe)]) {
    __atomic_store_n(reinterpret_cast<uint64_t*>(bounce_->peer_base[static_cast<size_t>(pe)] + bounce_offset), value,
                     __ATOMIC_RELEASE);
    return Status::ok();
  }
  Status st = options_.backend->fence();  // what precedes lands before the word that announces it
  if (!st.is_ok()) return st;
  return options_.backend->put(pe, backend::RemoteAddress{segments::kBounceSegment, bounce_offset}, &value, sizeof value);
}

// ---- requester side ----

Result<UserMemory::Descriptor> UserMemory::parse(int pe, std::string_view descriptor, size_t offset, size_t len,
                                                 const char* call) const {
  const std::string who = std::string(call) + ": PE " + std::to_string(options_.my_pe) + " -> PE " + std::to_string(pe);
  if (pe < 0 || pe >= options_.n_pes) {
    return invalid_argument(who + ": target PE out of range (the job has " + std::to_string(options_.n_pes) + " PEs)");
  }
  Result<Descriptor> d = decode(descriptor, offset, len, who);
  if (d.is_ok() && d.value().header.owner_pe != pe) {
    return invalid_argument(who + ": the descriptor is PE " + std::to_string(d.value().header.owner_pe) +
                            "'s, not PE " + std::to_string(pe) + "'s");
  }
  return d;
}

Result<UserMemory::Descriptor> UserMemory::decode(std::string_view descriptor, size_t offset, size_t len,
                                                  const std::string& who) {
  Descriptor d{};
  if (descriptor.size() < sizeof d.header) {
    return invalid_argument(who + ": the descriptor has " + std::to_string(descriptor.size()) +
                            " bytes; not one made by gasket::memreg::expose");
  }
  std::memcpy(&d.header, descriptor.data(), sizeof d.header);
  if (d.header.magic != kDescriptorMagic || descriptor.size() != sizeof d.header + d.header.key_bytes) {
    return invalid_argument(who + ": the descriptor (" + std::to_string(descriptor.size()) +
                            " bytes) is not one made by gasket::memreg::expose");
  }
  if (offset > d.header.length || len > d.header.length - offset) {
    return invalid_argument(who + ": " + std::to_string(len) + " bytes at offset " + std::to_string(offset) +
                            " run past the end of exposure #" + std::to_string(d.header.exposure) + " (" +
                            std::to_string(d.header.length) + " bytes)");
  }
  d.key = descriptor.data() + sizeof d.header;
  return d;
}

Result<uint64_t> UserMemory::exposure_of(std::string_view descriptor, size_t offset, size_t len, const char* call) const {
  Result<Descriptor> d = decode(descriptor, offset, len, std::string(call) + ": PE " + std::to_string(options_.my_pe) +
                                                             " -> a process of another job");
  if (!d.is_ok()) return d.status();
  return d.value().header.exposure;
}

char* UserMemory::exposed_range(uint64_t exposure, uint64_t offset, uint64_t len) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = exposures_.find(exposure);
  if (it == exposures_.end() || offset > it->second.length || len > it->second.length - offset) return nullptr;
  return reinterpret_cast<char*>(it->second.address) + offset;
}

Status UserMemory::put(int pe, std::string_view descriptor, size_t offset, const void* src, size_t len,
                       const char* call) {
  return transfer(Op::kPut, pe, descriptor, offset, const_cast<char*>(static_cast<const char*>(src)), len, call);
}

Status UserMemory::get(int pe, std::string_view descriptor, size_t offset, void* dst, size_t len, const char* call) {
  return transfer(Op::kGet, pe, descriptor, offset, static_cast<char*>(dst), len, call);
}

Status UserMemory::transfer(Op op, int pe, std::string_view descriptor, size_t offset, char* local, size_t len,
                            const char* call) {
  Result<Descriptor> d = parse(pe, descriptor, offset, len, call);
  if (!d.is_ok()) return d.status();
  if (len == 0) return Status::ok();
  if (pe == options_.my_pe) {
    char* exposed = reinterpret_cast<char*>(d->header.address) + offset;
    if (op == Op::kPut) std::memcpy(exposed, local, len);
    else std::memcpy(local, exposed, len);
    bytes_self_.fetch_add(len, std::memory_order_relaxed);
    return Status::ok();
  }
  if (options_.direct[static_cast<size_t>(pe)]) {
    if (options_.single_copy) {
      bool refused = false;
      Status st = kernel_transfer(op, d.value(), offset, local, len, &refused, call);
      if (!refused) return st;
    }
  } else if (d->header.segment != 0 && registration_ != nullptr &&
             (op == Op::kPut || options_.backend->remote_read() != nullptr)) {
    return backend_transfer(op, d.value(), offset, local, len, call);
  }
  return bounce_transfer(op, d.value(), offset, local, len, call);
}

Status UserMemory::kernel_transfer(Op op, const Descriptor& d, size_t offset, char* local, size_t len, bool* refused,
                                   const char* call) {
  const int pe = d.header.owner_pe;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (refused_[static_cast<size_t>(pe)]) {
      *refused = true;
      return Status::ok();
    }
    kernel_.set_pid(pe, d.header.owner_pid);
  }
  const uintptr_t remote = d.header.address + offset;
  Status st = op == Op::kPut ? kernel_.write(pe, remote, local, len) : kernel_.read(pe, local, remote, len);
  if (st.code() == StatusCode::kUnavailable) {
    // The kernel forbids single copy into that process (ptrace policy): the bounce path from now on.
    GASKET_DEBUG("%s: %s; PE %d uses the bounce segment for PE %d from now on", call, st.message().c_str(),
                 options_.my_pe, pe);
    std::lock_guard<std::mutex> lock(mutex_);
    refused_[static_cast<size_t>(pe)] = true;
    refusals_.fetch_add(1, std::memory_order_relaxed);
    *refused = true;
    return Status::ok();
  }
  if (!st.is_ok()) return Status(st.code(), std::string(call) + ": " + st.message());
  bytes_kernel_.fetch_add(len, std::memory_order_relaxed);
  return Status::ok();
}

Status UserMemory::backend_transfer(Op op, const Descriptor& d, size_t offset, char* local, size_t len,
                                    const char* call) {
  const int pe = d.header.owner_pe;
  const std::string what = std::string(call) + ": PE " + std::to_string(options_.my_pe) + " " +
                           (op == Op::kPut ? "putting " : "getting ") + std::to_string(len) + " bytes " +
                           (op == Op::kPut ? "into" : "from") + " PE " + std::to_string(pe) + "'s exposure #" +
                           std::to_string(d.header.exposure) + " at offset " + std::to_string(offset) + ": ";
  Status st = registration_->attach_user(pe, d.header.segment, d.header.segment_base, d.header.segment_size, d.key,
                                         d.header.key_bytes);
  if (st.is_ok()) {
    backend::RemoteAddress at{d.header.segment, d.header.address - d.header.segment_base + offset};
    if (op == Op::kPut) {
      st = core::am::put_in_pieces(*options_.backend, pe, at, local, len);
    } else {
      st = options_.backend->remote_read()->get(pe, local, at, len);
      if (st.is_ok()) st = options_.backend->quiet();  // complete on return
    }
  }
  if (!st.is_ok()) return Status(st.code(), what + st.message());
  bytes_backend_.fetch_add(len, std::memory_order_relaxed);
  return Status::ok();
}

Status UserMemory::bounce_transfer(Op op, const Descriptor& d, size_t offset, char* local, size_t len,
                                   const char* call) {
  const int pe = d.header.owner_pe;
  const auto owner = static_cast<size_t>(pe);
  const size_t stage_bytes = options_.stage_bytes;
  const size_t my_channel = channel_offset(options_.my_pe);  // in the owner's copy
  std::lock_guard<std::mutex> one_at_a_time(peer_mutex_[owner]);
  struct Pending {
    char* dst = nullptr;  // a get's destination, copied out when the stage completes
    size_t bytes = 0;
  } pending[2];
  Status result = Status::ok();
  // Waits until the owner has answered the last request of `stage`, and copies a get's data out.
  auto finish = [&](int stage) {
    auto* done = reinterpret_cast<uint64_t*>(own_channel(pe) + kDoneOffset) + stage;
    unsigned polls = 0;
    uint64_t word;
    while (((word = __atomic_load_n(done, __ATOMIC_ACQUIRE)) >> 8) != last_seq_[stage][owner]) options_.wait_step(&polls);
    if ((word & 0xff) != kStatusOk && result.is_ok()) {
      result = invalid_argument(std::string(call) + ": PE " + std::to_string(pe) + " refused PE " +
                                std::to_string(options_.my_pe) + "'s " + (op == Op::kPut ? "put" : "get") + " of " +
                                std::to_string(len) + " bytes at offset " + std::to_string(offset) + " of its exposure #" +
                                std::to_string(d.header.exposure) + " (released?)");
    }
    if (pending[stage].dst != nullptr && (word & 0xff) == kStatusOk) {
      std::memcpy(pending[stage].dst, own_channel(pe) + stage_out(stage_bytes, stage), pending[stage].bytes);
    }
    pending[stage] = Pending{};
  };
  for (size_t pos = 0; pos < len && result.is_ok();) {
    const size_t n = std::min(stage_bytes, len - pos);
    const uint64_t seq = next_seq_[owner] + 1;
    const int stage = static_cast<int>(seq & 1);
    finish(stage);
    if (!result.is_ok()) break;
    const size_t slot = my_channel + kRequestOffset + sizeof(RequestSlot) * static_cast<size_t>(stage);
    const uint64_t fields[4] = {static_cast<uint64_t>(op), d.header.exposure, offset + pos, n};
    Status st = Status::ok();
    if (op == Op::kPut) st = write_to(pe, my_channel + stage_in(stage_bytes, stage), local + pos, n);
    if (st.is_ok()) st = write_to(pe, slot + sizeof(uint64_t), fields, sizeof fields);
    if (st.is_ok()) st = publish(pe, slot, seq);
    if (!st.is_ok()) {
      result = Status(st.code(), std::string(call) + ": PE " + std::to_string(options_.my_pe) + " -> PE " +
                                     std::to_string(pe) + " through the bounce segment: " + st.message());
      break;
    }
    next_seq_[owner] = seq;
    last_seq_[stage][owner] = seq;
    if (op == Op::kGet) pending[stage] = Pending{local + pos, n};
    pos += n;
  }
  finish(0);
  finish(1);
  if (result.is_ok()) bytes_bounce_.fetch_add(len, std::memory_order_relaxed);
  return result;
}

std::vector<std::string> UserMemory::statistics() const {
  std::vector<std::string> lines;
  lines.push_back(cache_ ? cache_->describe()
                         : std::string("memreg cache: none (") +
                               (registration_ ? "" : "no backend peer registers user memory; ") + "nothing registered)");
  lines.push_back("memreg transfers: " + std::to_string(n_exposures_.load()) + " exposures; bytes: self " +
                  std::to_string(bytes_self_.load()) + ", kernel copy " + std::to_string(bytes_kernel_.load()) +
                  ", backend " + std::to_string(bytes_backend_.load()) + ", bounce " +
                  std::to_string(bytes_bounce_.load()) + "; bounce stages served " +
                  std::to_string(bounce_served_.load()) + "; kernel refusals " + std::to_string(refusals_.load()) +
                  (options_.single_copy ? "" : " (single copy off: GASKET_MEMREG_SINGLE_COPY=no)"));
  return lines;
}

}  // namespace gasket::memreg
