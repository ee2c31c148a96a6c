#include "mpi/coll/agree.h"

#include <algorithm>

#include "core/gasket.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "mpi/coll/algorithms.h"

namespace gasket::mpi::coll {

Error bcast_bytes(Context& c, Guard& g, void* buf, int64_t bytes, int root, const comm::Communicator& comm) {
  Schedule s(c, comm, "MPI_Bcast");
  bcast(s, s.peers(), as_bytes(s, buf, bytes), root);
  return s.run(g);
}

std::unique_ptr<Schedule> allgather_schedule(Context& c, const void* mine, int64_t bytes, void* all,
                                             const comm::Communicator& comm, int tag,
                                             const std::vector<int>* members) {
  auto s = tag >= 0 ? std::make_unique<Schedule>(c, comm, "MPI_Allgather", tag)
                    : std::make_unique<Schedule>(c, comm, "MPI_Allgather");
  Ranks who = s->peers();
  if (members != nullptr) {  // builder rank i is rank (*members)[i] of comm (resolved as transfers are added)
    who.map = members->data();
    who.size = static_cast<int>(members->size());
    who.rank = static_cast<int>(std::find(members->begin(), members->end(), comm.rank) - members->begin());
  }
  char* out = static_cast<char*>(all);
  std::memcpy(out + who.rank * bytes, mine, static_cast<size_t>(bytes));
  std::vector<Typed> blocks;
  for (int r = 0; r < who.size; ++r) blocks.push_back(as_bytes(*s, out + r * bytes, bytes));
  allgather(*s, who, as_bytes(*s, const_cast<void*>(mine), bytes), blocks, true);
  return s;
}

Error allgather_bytes(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const comm::Communicator& comm,
                      int tag, const std::vector<int>* members) {
  return allgather_schedule(c, mine, bytes, all, comm, tag, members)->run(g);
}

namespace {
struct Offer {
  uint64_t free_slots;
  uint32_t context;
  uint32_t unused;
};
struct Verdict {
  int context_ok;
  int slot_ok;
};

// The first context id from `floor` on that this process has neither used nor agreed.
uint32_t first_free(Context& c, uint32_t floor) {
  uint32_t x = std::max(c.comms().next_context(), floor);
  while (c.context_taken(x)) x += comm::kContextStride;
  return x;
}

// Offers (an unused context id, the free slots), the largest id and the lowest common slot are
// the candidates; each member takes them tentatively if still free here (another thread's
// agreement may have taken them meanwhile) and says so; if any member could not take the id,
// all give back what they took and try again above it. A slot that is not free everywhere is
// simply not used.
Agreement agree(Context& c, Guard& g, const comm::Communicator& comm, bool with_slot, int tag,
                const std::vector<int>* members = nullptr) {
  size_t n = members != nullptr ? members->size() : static_cast<size_t>(comm.size());
  std::vector<Offer> offers(n);
  std::vector<Verdict> verdicts(n);
  uint32_t floor = 0;
  // A communicator spanning jobs (dynamic processes: PEs from n_pes() on) never gets a slot of
  // the same-node collective area; every member sees a member of another job, so all offer none.
  bool spans_jobs = std::any_of(comm.group->pes.begin(), comm.group->pes.end(),
                                [n = gasket::n_pes()](int pe) { return pe >= n; });
  for (;;) {
    Offer mine{with_slot && !spans_jobs && c.area().usable() ? c.area().free_slots() : 0, first_free(c, floor), 0};
    (void)allgather_bytes(c, g, &mine, sizeof mine, offers.data(), comm, tag, members);
    Agreement a{0, -1};
    uint64_t free = ~uint64_t{0};
    for (const Offer& o : offers) a.context = std::max(a.context, o.context), free &= o.free_slots;
    if (free != 0) a.slot = __builtin_ctzll(free);
    Verdict v{!c.context_taken(a.context), a.slot >= 0 && ((c.area().free_slots() >> a.slot) & 1) != 0};
    if (v.context_ok) c.take_context(a.context);
    if (v.slot_ok) c.area().take(a.slot);
    (void)allgather_bytes(c, g, &v, sizeof v, verdicts.data(), comm, tag, members);
    bool context_ok = true, slot_ok = a.slot >= 0;
    for (const Verdict& w : verdicts) context_ok = context_ok && w.context_ok, slot_ok = slot_ok && w.slot_ok;
    if (v.slot_ok && (!slot_ok || !context_ok)) c.area().release(a.slot);
    if (context_ok) {
      c.comms().use_context(a.context);
      if (!slot_ok) a.slot = -1;
      return a;
    }
    if (v.context_ok) c.release_context(a.context);
    floor = a.context + comm::kContextStride;
  }
}
}  // namespace

uint32_t agree_context(Context& c, Guard& g, const comm::Communicator& comm, int tag,
                       const std::vector<int>* members) {
  return agree(c, g, comm, false, tag, members).context;
}

Agreement agree_with_slot(Context& c, Guard& g, const comm::Communicator& comm) { return agree(c, g, comm, true, -1); }

ContextAgreement::ContextAgreement(Context& c, const comm::Communicator& comm)
    : ContextAgreement(c, comm, c.next_nonblocking_context(), false) {}

ContextAgreement::ContextAgreement(Context& c, const comm::Communicator& comm, uint32_t floor)
    : ContextAgreement(c, comm, floor, true) {}

ContextAgreement::ContextAgreement(Context& c, const comm::Communicator& comm, uint32_t floor, bool from_floor)
    : c_(c),
      comm_(comm),
      tag_(take_collective_tag(comm)),
      floor_(floor),
      from_floor_(from_floor),
      offers_(static_cast<size_t>(comm.size())),
      verdicts_(static_cast<size_t>(comm.size())) {
  start_offers();
}

void ContextAgreement::start_offers() {
  mine_ = from_floor_ ? floor_ : std::max(c_.next_nonblocking_context(), floor_);
  while (c_.context_taken(mine_)) mine_ += comm::kContextStride;
  verdicts_round_ = false;
  round_ = allgather_schedule(c_, &mine_, sizeof mine_, offers_.data(), comm_, tag_);
}

bool ContextAgreement::progress(Error* e) {
  for (;;) {
    if (!round_->progress(e)) return false;
    if (!e->is_ok()) return true;
    if (!verdicts_round_) {
      candidate_ = *std::max_element(offers_.begin(), offers_.end());
      verdict_ = c_.context_taken(candidate_) ? 0 : 1;
      if (verdict_) c_.take_context(candidate_);
      verdicts_round_ = true;
      round_ = allgather_schedule(c_, &verdict_, sizeof verdict_, verdicts_.data(), comm_, tag_);
      continue;
    }
    if (std::all_of(verdicts_.begin(), verdicts_.end(), [](int v) { return v != 0; })) {
      c_.use_nonblocking_context(candidate_);
      return true;
    }
    if (verdict_) c_.release_context(candidate_);
    // Above the refused candidate, by 1..16 strides depending on the parent (the same at every
    // member): agreements on different parents that refused each other part ways.
    uint32_t step = 1 + (comm_.context / comm::kContextStride + candidate_ / comm::kContextStride) % 16;
    floor_ = candidate_ + step * comm::kContextStride;
    start_offers();
  }
}

}  // namespace gasket::mpi::coll
