// The PCI-DDC backend: a write-only NIC modelled in software. Every write becomes LME entries
// (<= 64 KiB each, the entries of one message posted as one block, only the last one notifying);
// the engine hands them in order to the link (shm or tcp), which lands them in the target's
// segment and, for notifying entries, appends the id to the target's LMR. progress() flushes the
// LMR (acknowledging every event at once) and reports (source PE, id) to the notify handler in
// per-source FIFO order. Capabilities: put, put+notify, ordered per pair; no read, no atomics,
// no active messages (the core builds those on put+notify).
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "backends/pciddc/link.h"
#include "backends/pciddc/receive_list.h"
#include "backends/pciddc/send_list.h"

namespace gasket::backend::pciddc {

// The factory registered as "pciddc" (core/backends_builtin.cc). Collective.
Result<std::unique_ptr<Backend>> create(const StartInfo& info);

class PciddcBackend final : public Backend, public RemoteNotify, public InputSignal {
 public:
  ~PciddcBackend() override;
  const char* name() const override { return "pciddc"; }
  const Limits& limits() const override { return limits_; }
  Status register_segment(SegmentId id, void* base, size_t size) override;
  Status deregister_segment(SegmentId id) override;
  Status put(int pe, RemoteAddress dst, const void* src, size_t len) override;
  Status fence() override { return Status::ok(); }  // the links deliver in order
  Status quiet() override;
  void progress() override;
  std::string describe() const override;
  RemoteNotify* remote_notify() override { return this; }
  // Null when a shm link reaches PEs of other (simulated) nodes: the core cannot ring those.
  InputSignal* input_signal() override { return signals_input_ ? this : nullptr; }
  // Sockets of the tcp link; none on shm (its writers wake the target). False while
  // notifications wait undelivered.
  bool prepare_sleep(std::vector<pollfd>* fds) override;

  void set_handler(Handler handler) override { handler_ = std::move(handler); }
  Status put_notify(int pe, RemoteAddress dst, const void* src, size_t len, uint32_t id) override;

 private:
  friend Result<std::unique_ptr<Backend>> create(const StartInfo& info);
  PciddcBackend(const StartInfo& info, size_t lme_entries);

  // Posts one message (its entries as one block) and runs the engine over the LME.
  Status post(int pe, RemoteAddress dst, const void* src, size_t len, uint32_t id, bool notify);
  // Moves every LMR entry into the delivery queue (frees the LMR for its writers).
  void drain_receive_list();
  // Appends an incoming notification to this PE's LMR (tcp link), draining it when full.
  void receive_notification(int src_pe, uint32_t id);

  int my_pe_;
  Limits limits_;
  std::unique_ptr<Link> link_;
  const char* link_name_ = "";
  std::mutex lme_mutex_;  // LME_LOCK: posting and the engine
  SendList lme_;
  MessageIds ids_;
  uint64_t messages_ = 0, sent_notified_ = 0;
  std::vector<uint64_t> lmr_memory_;  // the LMR when the link does not provide shared memory
  ReceiveList lmr_;
  std::mutex queue_mutex_;  // LMR_FLUSH_LOCK
  std::deque<LmrEntry> queue_;
  std::vector<LmrEntry> scratch_;
  std::atomic<bool> delivering_{false};
  Handler handler_;
  uint64_t notifications_ = 0;
  bool signals_input_ = true;
};

}  // namespace gasket::backend::pciddc
