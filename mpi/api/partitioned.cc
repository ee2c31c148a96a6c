// Partitioned communication (MPI 4.1 chapter 4): MPI_Psend_init, MPI_Precv_init, MPI_Pready,
// MPI_Pready_range, MPI_Pready_list, MPI_Parrived; started, completed and freed as persistent
// requests (MPI_Start/Startall, the wait/test family, MPI_Request_free).
//
// Partitions land as puts into the receiver's landing zone, a block of the MPI_Alloc_mem pool
// (symmetric heap, so every peer addresses it through the core): data, then per send partition an
// 8-byte arrival word. A Pready'd partition is packed and put at once (then a fence, then its
// arrival word set to the round number), so it lands while the sender goes on; the receiver sees
// it arrive by the word, and MPI_Parrived / completion unpack it into the user's buffer.
//
// Matching: at init, each side sends its peer a hello on the communicator's collective context
// (a tag per direction | the user's tag's low 27 bits): the receiver names its landing zone, the sender
// its "ready" word, where the receiver writes the round it has started (so a round's puts never
// overwrite data of the round before that the receiver has not taken yet). Sender and receiver may
// partition differently when the total sizes match: a receive partition has arrived when every
// send partition overlapping its bytes has. Mismatched sizes fail the round (MPI_ERR_TRUNCATE: the
// send is larger; MPI_ERR_COUNT: smaller), reported by the wait that completes it on both sides.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/gasket.h"
#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/requests.h"
#include "mpi/bindings/large_count.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::p2p::Request;
using gasket::mpi::p2p::RequestKind;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
namespace dt = gasket::mpi::datatype;

namespace {

// Hellos travel on the communicator's collective context with these tags (one per direction, so
// the hellos of a rank's send and receive with the same peer never cross) | the user's low 27 bits.
constexpr int kHelloToReceiver = 0x70000000;
constexpr int kHelloToSender = 0x78000000;
constexpr int kHelloTagBits = 0x07ffffff;

// What each side tells the other once, at init.
struct Hello {
  uint64_t offset = 0;       // receiver: its landing zone; sender: its ready word (in the pool)
  int64_t total_bytes = 0;
  int32_t partitions = 0;
  int32_t tag = 0;           // the user's whole tag
};

class Partitioned final : public gasket::mpi::p2p::Operation {
 public:
  Partitioned(Context& c, Request* owner, bool send, void* buf, int partitions, int64_t count,
              const dt::Datatype* type, const cm::Communicator& comm, int peer, int tag)
      : c_(c), owner_(owner), send_(send), buf_(static_cast<char*>(buf)), partitions_(partitions), count_(count),
        type_(type), comm_(comm), peer_(peer), tag_(tag), my_rank_(comm.rank),
        peer_pe_(comm.peers().pes[static_cast<size_t>(peer)]), part_bytes_(count * type->size),
        ready_(static_cast<size_t>(partitions), false), sent_(static_cast<size_t>(partitions), 0),
        delivered_(static_cast<size_t>(partitions), false) {}

  ~Partitioned() override {
    bool in_flight = false;
    for (Request* r : {hello_out_, hello_in_}) {
      if (r == nullptr) continue;
      if (r->complete) {
        c_.engine().requests().release(r);
        continue;
      }
      if (r->kind == RequestKind::kRecv) c_.engine().cancel_recv(r);
      r->user_owned = false;  // the engine releases it if it ever completes
      in_flight = true;
    }
    if (in_flight) (void)hellos_.release();  // a hello still in flight keeps its buffers (48 bytes)
    if (zone_ != nullptr) c_.alloc_pool().release(zone_);
  }

  // At init: the sender's ready word and its hello; the receiver waits for the sender's hello to
  // size its landing zone (data + one arrival word per send partition), then answers.
  Error init(const char* call) {
    if (send_) {
      Error e = allocate(sizeof(uint64_t), call);
      if (!e.is_ok()) return e;
      say_hello();
    }
    hello_in_ = api::new_internal(c_, RequestKind::kRecv, &theirs(), sizeof(Hello), peer_, wire_tag(false), comm_,
                                  comm_.context + 1);
    c_.engine().start_recv(hello_in_);
    return Error::ok();
  }

  Error restart(const char*) override {
    ++round_;
    std::fill(ready_.begin(), ready_.end(), false);
    std::fill(delivered_.begin(), delivered_.end(), false);
    n_ready_ = n_sent_ = next_unsent_ = 0;
    return Error::ok();
  }

  // Pready of partition p (checked by the binding).
  Error mark_ready(int p, const char* call) {
    if (ready_[static_cast<size_t>(p)]) {
      return error(MPI_ERR_ARG, "%s: rank %d: partition %d was already marked ready in this round", call, my_rank_, p);
    }
    ready_[static_cast<size_t>(p)] = true;
    ++n_ready_;
    // A failed match (sizes that differ) is the round's error, kept in failure_ and reported by
    // the wait that completes the round, whether or not the peer's hello is here yet.
    Error round_failure;
    push(&round_failure);
    return Error::ok();
  }

  // Parrived of partition p: unpacks it when it has arrived.
  bool arrived(int p) {
    Error e;
    return matched(&e) && e.is_ok() && take(p);
  }

  bool progress(Error* e) override {
    if (!matched(e)) return false;
    if (!e->is_ok()) return true;
    if (send_) {
      push(e);
      return n_sent_ == partitions_;
    }
    bool all = true;
    for (int p = 0; p < partitions_; ++p) all = take(p) && all;
    if (all) {
      owner_->status_source = peer_;
      owner_->status_tag = tag_;
      owner_->status_bytes = total_bytes();
    }
    return all;
  }

  int partitions() const { return partitions_; }
  bool is_send() const { return send_; }

 private:
  int64_t total_bytes() const { return part_bytes_ * partitions_; }
  // The tag of the hello this side sends (`out`) or receives.
  int wire_tag(bool out) const { return ((send_ == out) ? kHelloToReceiver : kHelloToSender) | (tag_ & kHelloTagBits); }
  Hello& mine() { return hellos_[0]; }
  Hello& theirs() { return hellos_[1]; }
  // The peer's copy of a block of the pool, as an address here (the pool is symmetric).
  void* peer_address(uint64_t offset) const { return c_.alloc_pool().base() + offset; }
  // Where the arrival words follow the data in a landing zone (8-byte aligned).
  size_t words_at() const { return (static_cast<size_t>(total_bytes()) + 7) / 8 * 8; }
  uint64_t* arrival_words() const { return reinterpret_cast<uint64_t*>(zone_ + words_at()); }

  Error allocate(size_t bytes, const char* call) {
    zone_ = c_.alloc_pool().allocate(std::max<size_t>(bytes, 8), 64);
    if (zone_ == nullptr) {
      return error(MPI_ERR_NO_MEM, "%s: rank %d: no room for %zu bytes of partitioned %s in the MPI_Alloc_mem pool "
                                   "(GASKET_MPI_ALLOC_MEM_POOL)", call, my_rank_, bytes,
                   send_ ? "control word" : "landing zone");
    }
    std::memset(zone_, 0, bytes);
    return Error::ok();
  }

  void say_hello() {
    uint64_t offset = zone_ != nullptr ? static_cast<uint64_t>(zone_ - c_.alloc_pool().base()) : 0;
    // A receiver without a landing zone (no room) says it has no bytes: the sender's round fails.
    mine() = Hello{offset, zone_ != nullptr || send_ ? total_bytes() : -1, partitions_, tag_};
    hello_out_ = api::new_internal(c_, RequestKind::kSend, &mine(), sizeof(Hello), peer_, wire_tag(true), comm_,
                                   comm_.context + 1);
    c_.engine().start_send(hello_out_);
  }

  // True once the peer's hello is here (the receiver has then made its landing zone, answered,
  // and told the sender the round it has started); a size mismatch or no room sets *e.
  bool matched(Error* e) {
    if (hello_out_ != nullptr && hello_out_->complete) {
      c_.engine().requests().release(hello_out_);
      hello_out_ = nullptr;
    }
    if (hello_in_ != nullptr) {
      if (!hello_in_->complete) return false;
      c_.engine().requests().release(hello_in_);
      hello_in_ = nullptr;
      const char* call = send_ ? "MPI_Psend_init" : "MPI_Precv_init";
      if (theirs().total_bytes != total_bytes()) {
        int64_t sent = send_ ? total_bytes() : theirs().total_bytes;
        int64_t received = send_ ? theirs().total_bytes : total_bytes();
        failure_ = error(sent > received ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT,
                         "%s: rank %d: the partitioned send (%lld bytes in %d partitions) and receive (%lld bytes in "
                         "%d partitions) of tag %d between ranks %d and %d differ in size", call, my_rank_,
                         static_cast<long long>(sent), send_ ? partitions_ : theirs().partitions,
                         static_cast<long long>(received), send_ ? theirs().partitions : partitions_, tag_,
                         send_ ? my_rank_ : peer_, send_ ? peer_ : my_rank_);
      } else if (!send_) {
        failure_ = allocate(words_at() + sizeof(uint64_t) * static_cast<size_t>(theirs().partitions), call);
      }
      if (!send_) say_hello();  // also on failure: the sender learns the sizes and fails its round too
    }
    if (!failure_.is_ok()) {
      *e = failure_;
      return true;
    }
    if (!send_ && round_announced_ < round_) {  // the landing zone is free for this round: the sender may put
      round_announced_ = round_;
      gasket::atomic_set<uint64_t>(static_cast<uint64_t*>(peer_address(theirs().offset)), round_, peer_pe_,
                                   "MPI_Start (partitioned receive)");
    }
    return true;
  }

  // Sender: puts every ready partition not sent yet, once the receiver has started this round.
  void push(Error* e) {
    if (!matched(e) || !e->is_ok() || n_sent_ == n_ready_) return;
    if (__atomic_load_n(reinterpret_cast<uint64_t*>(zone_), __ATOMIC_ACQUIRE) < round_) return;
    char* landing = static_cast<char*>(peer_address(theirs().offset));
    uint64_t* words = reinterpret_cast<uint64_t*>(landing + words_at());
    staging_.resize(static_cast<size_t>(part_bytes_));
    for (int p = next_unsent_; p < partitions_; ++p) {
      if (!ready_[static_cast<size_t>(p)] || sent_[static_cast<size_t>(p)] == round_) continue;
      if (part_bytes_ > 0) {
        dt::pack(*type_, buf_ + p * count_ * type_->extent(), count_, staging_.data());
        gasket::put(landing + p * part_bytes_, staging_.data(), staging_.size(), peer_pe_, "MPI_Pready");
        gasket::fence();  // the data lands before the word that says it has
      }
      gasket::atomic_set<uint64_t>(&words[p], round_, peer_pe_, "MPI_Pready");
      sent_[static_cast<size_t>(p)] = round_;
      ++n_sent_;
    }
    while (next_unsent_ < partitions_ && sent_[static_cast<size_t>(next_unsent_)] == round_) ++next_unsent_;
  }

  // Receiver: whether receive partition p's bytes have all arrived; unpacks it the first time.
  bool take(int p) {
    if (delivered_[static_cast<size_t>(p)]) return true;
    int64_t send_part = theirs().total_bytes / std::max(theirs().partitions, 1);
    int first = 0, last = theirs().partitions;  // send partitions overlapping [p, p + 1) * part_bytes_
    if (send_part > 0) {
      first = static_cast<int>(p * part_bytes_ / send_part);
      last = static_cast<int>(((p + 1) * part_bytes_ + send_part - 1) / send_part);
    }
    const uint64_t* words = arrival_words();
    for (int s = first; s < last; ++s) {
      if (__atomic_load_n(&words[s], __ATOMIC_ACQUIRE) != round_) return false;
    }
    if (part_bytes_ > 0) dt::unpack(*type_, zone_ + p * part_bytes_, part_bytes_, buf_ + p * count_ * type_->extent(), count_);
    delivered_[static_cast<size_t>(p)] = true;
    return true;
  }

  Context& c_;
  Request* owner_;
  bool send_;
  char* buf_;
  int partitions_;
  int64_t count_;
  const dt::Datatype* type_;
  cm::Communicator comm_;
  int peer_, tag_, my_rank_, peer_pe_;
  int64_t part_bytes_;
  char* zone_ = nullptr;  // sender: its ready word; receiver: its landing zone
  std::unique_ptr<Hello[]> hellos_{new Hello[2]};  // mine, the peer's
  Request* hello_in_ = nullptr;
  Request* hello_out_ = nullptr;
  Error failure_;                // a mismatch found at matching: every round fails with it
  uint64_t round_ = 0;           // rounds started (MPI_Start)
  uint64_t round_announced_ = 0; // receiver: the round it told the sender it is ready for
  std::vector<bool> ready_;      // sender: Pready'd in this round
  std::vector<uint64_t> sent_;   // sender: the round each partition was last put in
  std::vector<bool> delivered_;  // receiver: unpacked in this round
  std::vector<char> staging_;    // sender: a partition packed
  int n_ready_ = 0, n_sent_ = 0, next_unsent_ = 0;
};

// Psend_init / Precv_init.
Error partitioned_init(Context& c, bool send, const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int peer,
                       int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request, const char* call) {
  cm::Communicator* cmm;
  const dt::Datatype* type;
  Error e = api::check_comm(c, comm, call, &cmm);
  if (e.is_ok()) e = api::check_type(c, datatype, count, call, *cmm, &type);
  if (e.is_ok()) e = api::check_info(c, info, call);
  if (e.is_ok()) e = api::check_count(count, call, *cmm);
  if (e.is_ok() && partitions < 1) {
    e = error(MPI_ERR_ARG, "%s: rank %d: partitions %d must be at least 1", call, cmm->rank, partitions);
  }
  if (e.is_ok()) e = api::check_buffer(buf, count * partitions, *type, call, *cmm);
  if (e.is_ok()) e = api::check_rank(peer, false, call, *cmm);  // no MPI_ANY_SOURCE for partitioned receives
  if (e.is_ok()) e = api::check_tag(tag, false, call, *cmm);    // nor MPI_ANY_TAG
  if (!e.is_ok()) return e;
  if (request == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: request is NULL", call, cmm->rank);
  Request* r = c.engine().requests().create(RequestKind::kOperation);
  r->comm = comm;
  r->persistent = true;
  r->complete = true;  // an inactive persistent request waits as complete
  r->my_rank = cmm->rank;
  r->peer_rank = peer;
  r->tag = tag;
  if (peer == MPI_PROC_NULL) {
    r->proc_null = true;
    r->operation = std::make_unique<Partitioned>(c, r, send, const_cast<void*>(buf), partitions, 0, type, *cmm, 0, tag);
  } else {
    auto op = std::make_unique<Partitioned>(c, r, send, const_cast<void*>(buf), partitions, count, type, *cmm, peer, tag);
    e = op->init(call);
    r->operation = std::move(op);
    if (!e.is_ok()) {
      c.engine().requests().release(r);
      return e;
    }
  }
  *request = r->handle;
  return Error::ok();
}

// The partitioned request behind `handle` (of the kind `send` says), active; its communicator
// goes to *comm (whose handler reports the error) once the handle is known.
Error lookup(Context& c, MPI_Request handle, bool send, const char* call, Request** r, Partitioned** op,
             MPI_Comm* comm) {
  Error e = api::lookup_request(c, handle, call, r);
  if (!e.is_ok()) return e;
  if (*r != nullptr && (*r)->comm != MPI_COMM_NULL) *comm = (*r)->comm;  // none: a completed-at-start send's handle
  *op = *r != nullptr && (*r)->kind == RequestKind::kOperation ? dynamic_cast<Partitioned*>((*r)->operation.get()) : nullptr;
  if (*op == nullptr || (*op)->is_send() != send) {
    return error(MPI_ERR_REQUEST, "%s: request %d is not a partitioned %s request", call, handle,
                 send ? "send (MPI_Psend_init)" : "receive (MPI_Precv_init)");
  }
  if (!(*r)->active) return error(MPI_ERR_REQUEST, "%s: rank %d: request %d is not started (MPI_Start)", call,
                                  (*r)->my_rank, handle);
  return Error::ok();
}

Error check_partition(const Request& r, const Partitioned& op, int p, const char* call) {
  if (p < 0 || p >= op.partitions()) {
    return error(MPI_ERR_ARG, "%s: rank %d: partition %d is out of range (request %d has %d partitions)", call,
                 r.my_rank, p, r.handle, op.partitions());
  }
  return Error::ok();
}

// Pready of every partition of `parts` (checked first: none is marked when one is bad); `bad`:
// what is wrong with the arguments, if anything (reported once the request's rank is known).
template <typename Parts>
int pready(MPI_Request request, int n, Parts parts, const char* call, const char* bad = nullptr) {
  MPI_Comm ec = MPI_COMM_WORLD;
  return api::call_ref(call, ec, [&](Context& c, Guard&) -> Error {
    Request* r;
    Partitioned* op;
    Error e = lookup(c, request, true, call, &r, &op, &ec);
    if (!e.is_ok()) return e;
    if (bad != nullptr) return error(MPI_ERR_ARG, "%s: rank %d: %s", call, r->my_rank, bad);
    for (int i = 0; i < n && e.is_ok(); ++i) e = check_partition(*r, *op, parts(i), call);
    if (r->proc_null) return e;
    for (int i = 0; i < n && e.is_ok(); ++i) e = op->mark_ready(parts(i), call);
    return e;
  });
}

}  // namespace

namespace gasket::mpi::large_count {

int Psend_init(const char* call, const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return api::call(call, comm, [&](Context& c, Guard&) {
    return partitioned_init(c, true, buf, partitions, count, datatype, dest, tag, comm, info, request, call);
  });
}

int Precv_init(const char* call, void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
               int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return api::call(call, comm, [&](Context& c, Guard&) {
    return partitioned_init(c, false, buf, partitions, count, datatype, source, tag, comm, info, request, call);
  });
}

}  // namespace gasket::mpi::large_count

extern "C" {

int PMPI_Pready(int partition, MPI_Request request) {
  return pready(request, 1, [&](int) { return partition; }, "MPI_Pready");
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  std::string bad = "partition_low " + std::to_string(partition_low) + " is above partition_high " +
                    std::to_string(partition_high);
  return pready(request, partition_high - partition_low + 1, [&](int i) { return partition_low + i; },
                "MPI_Pready_range", partition_high < partition_low ? bad.c_str() : nullptr);
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  const char* bad = length < 0 ? "length is negative"
                    : length > 0 && array_of_partitions == nullptr ? "array_of_partitions is NULL" : nullptr;
  return pready(request, length, [&](int i) { return array_of_partitions[i]; }, "MPI_Pready_list", bad);
}

int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  MPI_Comm ec = MPI_COMM_WORLD;
  const char* call = "MPI_Parrived";
  return api::call_ref(call, ec, [&](Context& c, Guard&) -> Error {
    Request* r;
    Partitioned* op;
    Error e = lookup(c, request, false, call, &r, &op, &ec);
    if (!e.is_ok()) return e;
    e = check_partition(*r, *op, partition, call);
    if (!e.is_ok()) return e;
    if (flag == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: flag is NULL", call, r->my_rank);
    c.engine().progress();
    *flag = r->proc_null || r->complete || op->arrived(partition);
    return Error::ok();
  });
}

}  // extern "C"
