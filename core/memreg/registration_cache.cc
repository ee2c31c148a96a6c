#include "core/memreg/registration_cache.h"

#include <ucm/api/ucm.h>
#include <unistd.h>

#include <vector>

namespace gasket::memreg {

namespace {
void on_unmap(ucm_event_type_t, ucm_event_t* event, void* arg) {
  static_cast<RegistrationCache*>(arg)->record_unmap(reinterpret_cast<uintptr_t>(event->vm_unmapped.address),
                                                     event->vm_unmapped.size);
}

uintptr_t page_size() {
  static const uintptr_t kPage = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}
}  // namespace

RegistrationCache::RegistrationCache(Registrar& registrar, size_t limit_bytes, segments::SegmentId first_id)
    : registrar_(registrar), limit_(limit_bytes), next_id_(first_id) {}

RegistrationCache::~RegistrationCache() {
  if (watching_) ucm_unset_event_handler(UCM_EVENT_VM_UNMAPPED, &on_unmap, this);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [id, e] : entries_) (void)registrar_.deregister_range(id);
}

Status RegistrationCache::watch_unmaps() {
  ucs_status_t st = ucm_set_event_handler(UCM_EVENT_VM_UNMAPPED, 1000, &on_unmap, this);
  if (st != UCS_OK) {
    return Status(StatusCode::kUnavailable, std::string("memreg: installing UCX's memory hooks (ucm) failed: ") +
                                                ucs_status_string(st));
  }
  watching_ = true;
  return Status::ok();
}

void RegistrationCache::record_unmap(uintptr_t start, size_t size) {
  while (pending_lock_.test_and_set(std::memory_order_acquire)) {
  }
  if (pending_count_ < kPendingUnmaps) {
    pending_start_[pending_count_] = start;
    pending_end_[pending_count_] = start + size;
    ++pending_count_;
  } else {
    pending_overflow_ = true;
  }
  pending_lock_.clear(std::memory_order_release);
}

void RegistrationCache::drain_unmaps_locked() {
  uintptr_t starts[kPendingUnmaps], ends[kPendingUnmaps];
  while (pending_lock_.test_and_set(std::memory_order_acquire)) {
  }
  size_t count = pending_count_;
  bool overflow = pending_overflow_;
  for (size_t i = 0; i < count; ++i) {
    starts[i] = pending_start_[i];
    ends[i] = pending_end_[i];
  }
  pending_count_ = 0;
  pending_overflow_ = false;
  pending_lock_.clear(std::memory_order_release);
  if (overflow) {
    invalidate_locked(0, UINTPTR_MAX);
    return;
  }
  for (size_t i = 0; i < count; ++i) invalidate_locked(starts[i], ends[i]);
}

Result<Registration> RegistrationCache::acquire(const void* addr, size_t len, const char* call) {
  auto a = reinterpret_cast<uintptr_t>(addr);
  uintptr_t last = 0;
  if (addr == nullptr || __builtin_add_overflow(a, len == 0 ? 1 : len, &last) || last > UINTPTR_MAX - page_size()) {
    return invalid_argument(std::string(call) + ": cannot register " + std::to_string(len) + " bytes at address " +
                            std::to_string(a));
  }
  const uintptr_t start = a & ~(page_size() - 1), end = (last + page_size() - 1) & ~(page_size() - 1);
  std::lock_guard<std::mutex> lock(mutex_);
  drain_unmaps_locked();
  auto it = index_.upper_bound(start);
  if (it != index_.begin()) {
    Entry* e = std::prev(it)->second;
    if (e->start <= start && end <= e->end) {  // hit
      if (e->users++ == 0) lru_.erase(e->lru);
      ++stats_.hits;
      return Registration{e->id, reinterpret_cast<char*>(e->start), e->end - e->start};
    }
  }
  // Miss: register the union with every entry it overlaps or touches, which it then replaces.
  ++stats_.misses;
  uintptr_t new_start = start, new_end = end;
  std::vector<Entry*> swallowed;
  it = index_.upper_bound(start);
  if (it != index_.begin()) --it;
  for (; it != index_.end() && it->first <= end; ++it) {
    Entry* e = it->second;
    if (e->end < start) continue;
    swallowed.push_back(e);
    new_start = std::min(new_start, e->start);
    new_end = std::max(new_end, e->end);
  }
  if (!swallowed.empty()) ++stats_.extends;
  segments::SegmentId id = next_id_++;
  Status st = registrar_.register_range(id, reinterpret_cast<void*>(new_start), new_end - new_start);
  if (!st.is_ok()) return Status(st.code(), std::string(call) + ": registering user memory: " + st.message());
  for (Entry* e : swallowed) retire_locked(e);
  auto owned = std::make_unique<Entry>();
  Entry* e = owned.get();
  e->id = id;
  e->start = new_start;
  e->end = new_end;
  e->users = 1;
  entries_.emplace(id, std::move(owned));
  index_.emplace(new_start, e);
  stats_.registered_bytes += new_end - new_start;
  evict_locked();
  return Registration{id, reinterpret_cast<char*>(new_start), new_end - new_start};
}

Status RegistrationCache::release(const Registration& reg, const char* call) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find(reg.id);
  if (found == entries_.end() || found->second->users == 0) {
    return invalid_argument(std::string(call) + ": registration " + std::to_string(reg.id) +
                            " is not in use (released twice, or never acquired)");
  }
  Entry* e = found->second.get();
  if (--e->users > 0) return Status::ok();
  if (e->retired) return destroy_locked(e);
  e->lru = lru_.insert(lru_.end(), e);
  evict_locked();
  return Status::ok();
}

void RegistrationCache::invalidate(const void* addr, size_t len) {
  auto a = reinterpret_cast<uintptr_t>(addr);
  std::lock_guard<std::mutex> lock(mutex_);
  invalidate_locked(a, len > UINTPTR_MAX - a ? UINTPTR_MAX : a + len);
}

void RegistrationCache::invalidate_locked(uintptr_t start, uintptr_t end) {
  std::vector<Entry*> hit;
  auto it = index_.upper_bound(start);
  if (it != index_.begin()) --it;
  for (; it != index_.end() && it->first < end; ++it) {
    if (it->second->end > start) hit.push_back(it->second);
  }
  for (Entry* e : hit) {
    ++stats_.invalidations;
    retire_locked(e);
  }
}

void RegistrationCache::retire_locked(Entry* e) {
  index_.erase(e->start);
  e->retired = true;
  if (e->users == 0) {
    lru_.erase(e->lru);
    (void)destroy_locked(e);  // a failed deregistration is reported by the registrar's caller below
  }
}

Status RegistrationCache::destroy_locked(Entry* e) {
  Status st = registrar_.deregister_range(e->id);
  stats_.registered_bytes -= e->end - e->start;
  entries_.erase(e->id);
  return st;
}

void RegistrationCache::evict_locked() {
  while (stats_.registered_bytes > limit_ && !lru_.empty()) {
    Entry* e = lru_.front();
    ++stats_.evictions;
    retire_locked(e);
  }
}

CacheStats RegistrationCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  CacheStats s = stats_;
  s.live_entries = entries_.size();
  return s;
}

std::string RegistrationCache::describe() const {
  CacheStats s = stats();
  return "memreg cache: " + std::to_string(s.hits) + " hits, " + std::to_string(s.misses) + " misses (" +
         std::to_string(s.extends) + " extending), " + std::to_string(s.evictions) + " evictions, " +
         std::to_string(s.invalidations) + " invalidations; " + std::to_string(s.live_entries) + " registrations, " +
         std::to_string(s.registered_bytes) + " bytes";
}

}  // namespace gasket::memreg
