#include "backends/pciddc/wire.h"

#include "backends/pciddc/send_list.h"

namespace gasket::backend::pciddc::wire {

namespace {
Status protocol_error(int my_pe, const std::string& what) {
  return Status(StatusCode::kProtocolError, "pciddc/tcp: PE " + std::to_string(my_pe) + ": " + what +
                                                "; dropping the connection");
}
}  // namespace

Status check_hello(const Hello& hello, const std::string& secret_received, const std::string& secret,
                   int my_pe, int n_pes, const std::string& from) {
  if (hello.magic != kHelloMagic) {
    return protocol_error(my_pe, "connection from " + from + " does not start with a gasket hello (magic " +
                                     std::to_string(hello.magic) + ")");
  }
  if (hello.src_pe >= static_cast<uint32_t>(n_pes) || hello.src_pe == static_cast<uint32_t>(my_pe)) {
    return protocol_error(my_pe, "connection from " + from + " claims to be PE " + std::to_string(hello.src_pe) +
                                     " (the job has " + std::to_string(n_pes) + " PEs)");
  }
  // Constant time in the secret's content, so a prober learns nothing from timing.
  unsigned diff = secret_received.size() != secret.size() ? 1u : 0u;
  for (size_t i = 0; i < secret.size(); ++i) {
    diff |= static_cast<unsigned>(static_cast<unsigned char>(secret[i]) ^
                                  static_cast<unsigned char>(i < secret_received.size() ? secret_received[i] : 0));
  }
  if (diff != 0) {
    return protocol_error(my_pe, "connection from " + from + " claiming to be PE " + std::to_string(hello.src_pe) +
                                     " presented a wrong job secret (" + std::to_string(secret_received.size()) +
                                     " bytes)");
  }
  return Status::ok();
}

Status check_frame(const FrameHeader& h, int my_pe, int peer, const SegmentWindows& windows, char** dst) {
  *dst = nullptr;
  const std::string who = "frame from PE " + std::to_string(peer);
  if (h.magic != kFrameMagic) return protocol_error(my_pe, who + " has a corrupt header (bad magic)");
  if (h.src_pe != static_cast<uint32_t>(peer)) {
    return protocol_error(my_pe, who + " names PE " + std::to_string(h.src_pe) + " as its source");
  }
  // The length first, whatever the kind: a header claiming more than an entry holds ends the
  // connection as it arrives, before any payload is waited for and before a later field's check.
  if (h.length > kMaxEntryBytes) {
    return protocol_error(my_pe, who + ": length " + std::to_string(h.length) + " exceeds the " +
                                     std::to_string(kMaxEntryBytes) + "-byte entry limit");
  }
  auto kind = static_cast<FrameKind>(h.kind);
  if (kind == FrameKind::kFlushRequest || kind == FrameKind::kFlushAck) {
    if (h.length != 0) {
      return protocol_error(my_pe, who + ": control frame (kind " + std::to_string(h.kind) + ") claims a length of " +
                                       std::to_string(h.length) + " bytes; control frames carry none");
    }
    if (h.wire_flags != 0) return protocol_error(my_pe, who + ": control frame with wire flags " + std::to_string(h.wire_flags));
    return Status::ok();
  }
  if (kind != FrameKind::kWrite) return protocol_error(my_pe, who + " has unknown kind " + std::to_string(h.kind));
  if ((h.wire_flags & ~kAckWanted) != 0) {
    return protocol_error(my_pe, who + " has invalid wire flags " + std::to_string(h.wire_flags));
  }
  if ((h.flags & ~(kNotifySender | kNotifyReceiver | kLastOfMessage)) != 0 || h.id > kMaxMessageId) {
    return protocol_error(my_pe, who + " has invalid flags " + std::to_string(h.flags) + " or id " +
                                     std::to_string(h.id));
  }
  auto it = windows.find(h.segment);
  if (it == windows.end()) {
    return protocol_error(my_pe, who + " targets segment " + std::to_string(h.segment) +
                                     ", which is not registered here");
  }
  const Window& w = it->second;
  if (h.offset > w.size || h.length > w.size - h.offset) {
    return protocol_error(my_pe, who + ": offset " + std::to_string(h.offset) + " + length " +
                                     std::to_string(h.length) + " runs past the end of segment " +
                                     std::to_string(h.segment) + " (" + std::to_string(w.size) + " bytes)");
  }
  *dst = w.base + h.offset;
  return Status::ok();
}

}  // namespace gasket::backend::pciddc::wire
