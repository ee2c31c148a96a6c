#include "backends/pciddc/send_list.h"

#include <string>

namespace gasket::backend::pciddc {

std::vector<SendEntry> build_message(uint32_t id, int dst_pe, RemoteAddress dst, const void* src,
                                     size_t length, bool notify_receiver, bool notify_sender,
                                     size_t max_entry) {
  std::vector<SendEntry> out;
  const char* p = static_cast<const char*>(src);
  size_t done = 0;
  do {
    size_t n = length - done < max_entry ? length - done : max_entry;
    SendEntry e;
    e.id = id & kMaxMessageId;
    e.dst_pe = dst_pe;
    e.dst = RemoteAddress{dst.segment, dst.offset + done};
    e.src = p + done;
    e.length = static_cast<uint32_t>(n);
    done += n;
    if (done == length) {
      e.flags = kLastOfMessage | (notify_receiver ? kNotifyReceiver : 0) | (notify_sender ? kNotifySender : 0);
    }
    out.push_back(e);
  } while (done < length);
  return out;
}

SendList::SendList(size_t capacity) {
  size_t n = 2;
  while (n < capacity) n <<= 1;
  entries_.resize(n);
  mask_ = n - 1;
}

Status SendList::post(const SendEntry* entries, size_t count) {
  if (count > capacity()) {
    return invalid_argument("pciddc LME: a message of " + std::to_string(count) +
                            " entries can never fit the send list of " + std::to_string(capacity()) +
                            " entries (GASKET_PCIDDC_LME_ENTRIES)");
  }
  if (in_use() + count > capacity()) {
    return Status(StatusCode::kUnavailable, "pciddc LME: " + std::to_string(count) + " entries do not fit, " +
                                                std::to_string(capacity() - in_use()) + " free (flush first)");
  }
  for (size_t i = 0; i < count; ++i) {
    if (entries[i].length > kMaxEntryBytes || entries[i].id > kMaxMessageId) {
      return invalid_argument("pciddc LME: entry " + std::to_string(i) + " has length " +
                              std::to_string(entries[i].length) + " (max " + std::to_string(kMaxEntryBytes) +
                              ") and id " + std::to_string(entries[i].id) + " (max " +
                              std::to_string(kMaxMessageId) + ")");
    }
  }
  for (size_t i = 0; i < count; ++i) entries_[(new_ + i) & mask_] = entries[i];
  new_ += count;  // published as one block: the engine never sees part of a message
  return Status::ok();
}

const SendEntry* SendList::current() const { return cur_ == new_ ? nullptr : &entries_[cur_ & mask_]; }

void SendList::complete() {
  if (cur_ != new_) ++cur_;
}

size_t SendList::flush(std::vector<uint32_t>* notified) {
  size_t n = static_cast<size_t>(cur_ - ack_);
  for (; ack_ != cur_; ++ack_) {
    const SendEntry& e = entries_[ack_ & mask_];
    if ((e.flags & kNotifySender) != 0 && notified != nullptr) notified->push_back(e.id);
  }
  return n;
}

}  // namespace gasket::backend::pciddc
