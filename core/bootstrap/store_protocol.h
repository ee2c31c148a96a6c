// The wire protocol between a PE (the launcher-store client in core/bootstrap) and the key-value
// store served by the launcher (tools/gasketrun). Both sides include this header and use the one
// encode/decode implementation in store_protocol.cc, so the two cannot drift.
//
// A connection carries frames: a 4-byte big-endian payload length, then the payload. A payload is
// one byte of MessageType followed by the fields that type carries (see kLayouts in
// store_protocol.cc), always in the order pe, code, key, value:
//   integers: 4 bytes, big-endian, two's complement;
//   strings:  4-byte big-endian length, then that many bytes (any bytes: keys and values are
//             binary-safe).
// The first frame a client sends must be HELLO carrying the job secret; the server drops a
// connection whose first frame is anything else, before reading more than kMaxHelloPayload bytes.
//
// Exchange (client -> server, server -> client):
//   HELLO(pe = rank, value = secret)  -> HELLO_OK | ERROR (then close) | close (wrong secret)
//   PUT(key, value)                   -> (no answer; the stream is ordered)
//   FENCE                             -> FENCE_DONE once every PE has fenced | ERROR
//   GET(pe, key)                      -> GET_REPLY(value) once PE `pe` has put `key` | ERROR
//   ABORT(code, value = message)      -> (the launcher ends the job; the connection closes)
//   FINALIZE                          -> FINALIZE_OK
//   SERVICE(key = operation, value)   -> SERVICE_REPLY(code = 0 and value, or code != 0 and the
//                                        reason): dynamic processes. Operations: "spawn"
//                                        (value: encode_strings of a SpawnRequest), "publish"
//                                        (value: strings name, port), "lookup" (value: name;
//                                        reply: the port), "unpublish" (value: name).
// HELLO with pe = -1 opens a name-service connection (the name server is the store of the first
// launcher, shared by every job it spawns): it may send only publish/lookup/unpublish.
// A client has at most one request outstanding, so answers arrive in request order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/bootstrap/bootstrap.h"

namespace gasket::bootstrap::protocol {

enum class MessageType : uint8_t {
  kHello = 1,
  kHelloOk = 2,
  kPut = 3,
  kFence = 4,
  kFenceDone = 5,
  kGet = 6,
  kGetReply = 7,
  kAbort = 8,
  kFinalize = 9,
  kFinalizeOk = 10,
  kError = 11,
  kService = 12,
  kServiceReply = 13,
};

// The SERVICE_REPLY code of a failed operation (value: why).
constexpr int32_t kServiceFailed = 1;

// One decoded frame. Only the fields the type carries are meaningful (and encoded).
struct Message {
  MessageType type = MessageType::kError;
  int32_t pe = 0;
  int32_t code = 0;
  std::string key;
  std::string value;
};

constexpr size_t kFrameHeaderBytes = 4;
// Limit on the first frame of a connection, checked before authentication.
constexpr uint32_t kMaxHelloPayload = 1024;
// Limit on any later frame (keys + values of one PUT or GET_REPLY).
constexpr uint32_t kMaxPayload = 64u << 20;

// "PUT", "GET_REPLY", ...; "UNKNOWN" for a value outside the enum.
const char* message_type_name(MessageType type);

// The whole frame (length prefix included). Fails when the payload would exceed kMaxPayload.
Result<std::string> encode(const Message& message);

// Decodes one payload (without the length prefix). Rejects unknown types, truncated fields and
// trailing bytes with a kProtocolError status.
Result<Message> decode_payload(std::string_view payload);

// Cuts a byte stream into frames and decodes them.
class FrameReader {
 public:
  explicit FrameReader(uint32_t max_payload) : max_payload_(max_payload) {}

  void set_max_payload(uint32_t max_payload) { max_payload_ = max_payload; }
  void append(const char* data, size_t size);
  // The next complete message, std::nullopt when more bytes are needed, or an error when the
  // announced length exceeds the limit or the payload does not decode.
  Result<std::optional<Message>> next();
  // Bytes received but not yet returned as messages.
  size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  std::string buffer_;
  size_t consumed_ = 0;
  uint32_t max_payload_;
};

// A list of strings as one binary-safe value (each a 4-byte big-endian length and its bytes).
std::string encode_strings(const std::vector<std::string>& strings);
Result<std::vector<std::string>> decode_strings(std::string_view bytes);

// A spawn request as the value of SERVICE "spawn".
std::string encode_spawn(const SpawnRequest& request);
Result<SpawnRequest> decode_spawn(std::string_view bytes);

// Keys and messages from the wire, made safe for a log line: printable ASCII kept, other bytes as
// \xNN, cut after `limit` characters.
std::string printable(std::string_view bytes, size_t limit = 80);

}  // namespace gasket::bootstrap::protocol
