#include "backends/pciddc/shm_link.h"

#include <sched.h>

#include <chrono>
#include <cstring>

#include "core/base/log.h"

namespace gasket::backend::pciddc {

namespace {
constexpr const char* kLmrFileName = "pciddc-lmr";
constexpr int kFullWarningSeconds = 10;
}  // namespace

Result<std::unique_ptr<ShmLink>> ShmLink::create(Options options) {
  std::unique_ptr<ShmLink> link(new ShmLink(std::move(options)));
  const StartInfo& info = link->options_.start;
  if (info.segments == nullptr || !info.segment_file) {
    return Status(StatusCode::kInternal, "pciddc/shm: the core did not hand over its segment table");
  }
  size_t bytes = ReceiveList::bytes_for(link->options_.lmr_entries);
  auto own = segments::SharedMemoryFile::create(info.segment_file(info.my_pe, kLmrFileName), bytes);
  if (!own.is_ok()) return Status(own.status().code(), "pciddc/shm: PE " + std::to_string(info.my_pe) + ": creating the LMR: " + own.status().message());
  link->own_lmr_ = ReceiveList::format(own->data(), link->options_.lmr_entries);
  link->files_.push_back(std::move(own.value()));
  Status st = info.bootstrap->fence();
  if (!st.is_ok()) return st;
  link->peer_lmr_.resize(static_cast<size_t>(info.n_pes));
  for (int pe = 0; pe < info.n_pes; ++pe) {
    if (!link->options_.reached[static_cast<size_t>(pe)]) continue;
    auto f = segments::SharedMemoryFile::open(info.segment_file(pe, kLmrFileName), bytes);
    if (!f.is_ok()) {
      return Status(f.status().code(), "pciddc/shm: PE " + std::to_string(info.my_pe) + " cannot map PE " +
                                           std::to_string(pe) + "'s LMR (GASKET_PCIDDC_LINK=shm needs every PE on this host, "
                                           "or the same GASKET_PCIDDC_LMR_ENTRIES everywhere): " + f.status().message());
    }
    auto lmr = ReceiveList::attach(f->data(), bytes);
    if (!lmr.is_ok()) return lmr.status();
    link->peer_lmr_[static_cast<size_t>(pe)] = lmr.value();
    link->files_.push_back(std::move(f.value()));
  }
  if (!(st = info.bootstrap->fence()).is_ok()) return st;
  return link;
}

Status ShmLink::register_segment(SegmentId id, void* base, size_t size) {
  const StartInfo& info = options_.start;
  const segments::Segment* seg = info.segments->find(id);
  if (seg == nullptr || seg->base != base || seg->size != size) {
    return invalid_argument("pciddc/shm: PE " + std::to_string(info.my_pe) + ": segment " + std::to_string(id) +
                            " is not in the core's segment table as registered");
  }
  std::vector<wire::Window> windows(static_cast<size_t>(info.n_pes), wire::Window{nullptr, 0});
  windows[static_cast<size_t>(info.my_pe)] = wire::Window{static_cast<char*>(base), size};
  for (int pe = 0; pe < info.n_pes; ++pe) {
    if (!options_.reached[static_cast<size_t>(pe)]) continue;
    char* mapped = seg->peer_base.size() > static_cast<size_t>(pe) ? seg->peer_base[static_cast<size_t>(pe)] : nullptr;
    // A segment on no shared file (static data with GASKET_REDISTRIBUTE=no) has nothing to map:
    // the core reaches same-host copies by a kernel copy; a write here finds no window.
    if (mapped == nullptr && !seg->file_backed) continue;
    if (mapped == nullptr) {  // another (simulated) node: map its file ourselves
      auto f = segments::SharedMemoryFile::open(info.segment_file(pe, seg->name), size);
      if (!f.is_ok()) {
        return Status(f.status().code(), "pciddc/shm: PE " + std::to_string(info.my_pe) + " cannot map PE " +
                                             std::to_string(pe) + "'s " + seg->name + " segment (the shm link needs "
                                             "every PE on this host): " + f.status().message());
      }
      mapped = f->data();
      files_.push_back(std::move(f.value()));
    }
    windows[static_cast<size_t>(pe)] = wire::Window{mapped, size};
  }
  peer_windows_[id] = std::move(windows);
  return Status::ok();
}

Status ShmLink::deregister_segment(SegmentId id) {
  peer_windows_.erase(id);
  return Status::ok();
}

Status ShmLink::write(const SendEntry& e) {
  const int me = options_.start.my_pe;
  auto it = peer_windows_.find(e.dst.segment);
  const wire::Window* w = it == peer_windows_.end() ? nullptr : &it->second[static_cast<size_t>(e.dst_pe)];
  if (w == nullptr || w->base == nullptr || e.dst.offset > w->size || e.length > w->size - e.dst.offset) {
    return invalid_argument("pciddc/shm: PE " + std::to_string(me) + ": write of " + std::to_string(e.length) +
                            " bytes to PE " + std::to_string(e.dst_pe) + " segment " + std::to_string(e.dst.segment) +
                            " offset " + std::to_string(e.dst.offset) + " is outside that segment");
  }
  std::memcpy(w->base + e.dst.offset, e.src, e.length);
  ++writes_;
  if ((e.flags & kNotifyReceiver) == 0) {
    wake(e.dst_pe);
    return Status::ok();
  }
  ReceiveList& target = peer_lmr_[static_cast<size_t>(e.dst_pe)];
  auto start = std::chrono::steady_clock::now();
  bool warned = false;
  while (!target.append(static_cast<uint32_t>(me), e.id)) {
    // The target has not flushed its LMR yet: let anyone waiting on us proceed, then retry.
    ++lmr_full_waits_;
    options_.drain_own();
    sched_yield();
    if (!warned && std::chrono::steady_clock::now() - start > std::chrono::seconds(kFullWarningSeconds)) {
      GASKET_WARN("pciddc/shm: PE %d's LMR has been full for %d s; PE %d waits for it to serve its "
                  "notifications (GASKET_PCIDDC_LMR_ENTRIES=%zu)", e.dst_pe, kFullWarningSeconds, me,
                  target.capacity());
      warned = true;
    }
  }
  wake(e.dst_pe);
  return Status::ok();
}

std::string ShmLink::describe() const {
  return "link shm, " + std::to_string(writes_) + " writes, LMR " + std::to_string(own_lmr_.capacity()) +
         " entries, " + std::to_string(lmr_full_waits_) + " waits on a full LMR";
}

}  // namespace gasket::backend::pciddc
