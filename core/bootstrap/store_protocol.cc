#include "core/bootstrap/store_protocol.h"

#include <cstdio>
#include <cstdlib>

namespace gasket::bootstrap::protocol {
namespace {

// Which fields each message type carries. The single source of truth for encode and decode.
struct Layout {
  MessageType type;
  const char* name;
  bool has_pe;
  bool has_code;
  bool has_key;
  bool has_value;
};

constexpr Layout kLayouts[] = {
    {MessageType::kHello, "HELLO", true, false, false, true},
    {MessageType::kHelloOk, "HELLO_OK", false, false, false, false},
    {MessageType::kPut, "PUT", false, false, true, true},
    {MessageType::kFence, "FENCE", false, false, false, false},
    {MessageType::kFenceDone, "FENCE_DONE", false, false, false, false},
    {MessageType::kGet, "GET", true, false, true, false},
    {MessageType::kGetReply, "GET_REPLY", false, false, false, true},
    {MessageType::kAbort, "ABORT", false, true, false, true},
    {MessageType::kFinalize, "FINALIZE", false, false, false, false},
    {MessageType::kFinalizeOk, "FINALIZE_OK", false, false, false, false},
    {MessageType::kError, "ERROR", false, false, false, true},
    {MessageType::kService, "SERVICE", false, false, true, true},
    {MessageType::kServiceReply, "SERVICE_REPLY", false, true, false, true},
};

const Layout* find_layout(uint8_t type) {
  for (const Layout& layout : kLayouts) {
    if (static_cast<uint8_t>(layout.type) == type) return &layout;
  }
  return nullptr;
}

void put_u32(std::string* out, uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  out->append(b, 4);
}

uint32_t get_u32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

Status protocol_error(std::string message) {
  return Status(StatusCode::kProtocolError, std::move(message));
}

// Reads fields from a payload, failing cleanly on truncation.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  bool read_u32(uint32_t* v) {
    if (bytes_.size() - pos_ < 4) return false;
    *v = get_u32(bytes_.data() + pos_);
    pos_ += 4;
    return true;
  }
  bool read_string(std::string* s) {
    uint32_t n = 0;
    if (!read_u32(&n) || bytes_.size() - pos_ < n) return false;
    s->assign(bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

std::string encode_strings(const std::vector<std::string>& strings) {
  std::string out;
  for (const std::string& s : strings) {
    put_u32(&out, static_cast<uint32_t>(s.size()));
    out += s;
  }
  return out;
}

Result<std::vector<std::string>> decode_strings(std::string_view bytes) {
  Cursor c(bytes);
  std::vector<std::string> out;
  while (c.remaining() > 0) {
    out.emplace_back();
    if (!c.read_string(&out.back())) return protocol_error("truncated list of strings");
  }
  return out;
}

// strings: parent port, then per app: command, wdir, path, maxprocs, argument count, arguments.
std::string encode_spawn(const SpawnRequest& request) {
  std::vector<std::string> s{request.parent_port};
  for (const SpawnApp& app : request.apps) {
    s.insert(s.end(), {app.command, app.wdir, app.path, std::to_string(app.maxprocs), std::to_string(app.args.size())});
    s.insert(s.end(), app.args.begin(), app.args.end());
  }
  return encode_strings(s);
}

Result<SpawnRequest> decode_spawn(std::string_view bytes) {
  Result<std::vector<std::string>> s = decode_strings(bytes);
  if (!s.is_ok()) return s.status();
  SpawnRequest request;
  size_t at = 0;
  auto number = [&](long max, long* out) {
    if (at >= s->size()) return false;
    char* end = nullptr;
    *out = std::strtol((*s)[at].c_str(), &end, 10);
    ++at;
    return end != nullptr && *end == '\0' && *out >= 0 && *out <= max;
  };
  if (s->empty()) return protocol_error("spawn request without a parent port");
  request.parent_port = (*s)[at++];
  while (at < s->size()) {
    SpawnApp app;
    long maxprocs = 0, nargs = 0;
    if (s->size() - at < 3) return protocol_error("truncated spawn request");
    app.command = (*s)[at++];
    app.wdir = (*s)[at++];
    app.path = (*s)[at++];
    if (!number(1 << 20, &maxprocs) || !number(1 << 20, &nargs) || s->size() - at < static_cast<size_t>(nargs)) {
      return protocol_error("malformed spawn request");
    }
    app.maxprocs = static_cast<int>(maxprocs);
    app.args.assign(s->begin() + static_cast<long>(at), s->begin() + static_cast<long>(at) + nargs);
    at += static_cast<size_t>(nargs);
    request.apps.push_back(std::move(app));
  }
  return request;
}

const char* message_type_name(MessageType type) {
  const Layout* layout = find_layout(static_cast<uint8_t>(type));
  return layout != nullptr ? layout->name : "UNKNOWN";
}

Result<std::string> encode(const Message& m) {
  const Layout* layout = find_layout(static_cast<uint8_t>(m.type));
  if (layout == nullptr) {
    return Status(StatusCode::kInternal,
                  "encode: unknown message type " + std::to_string(static_cast<int>(m.type)));
  }
  uint64_t payload_size = 1 + (layout->has_pe ? 4 : 0) + (layout->has_code ? 4 : 0) +
                          (layout->has_key ? 4 + uint64_t{m.key.size()} : 0) +
                          (layout->has_value ? 4 + uint64_t{m.value.size()} : 0);
  if (payload_size > kMaxPayload) {
    return invalid_argument(std::string(layout->name) + " message of " +
                            std::to_string(payload_size) + " bytes exceeds the store's limit of " +
                            std::to_string(kMaxPayload) + " bytes");
  }
  std::string frame;
  frame.reserve(kFrameHeaderBytes + payload_size);
  put_u32(&frame, static_cast<uint32_t>(payload_size));
  frame.push_back(static_cast<char>(m.type));
  if (layout->has_pe) put_u32(&frame, static_cast<uint32_t>(m.pe));
  if (layout->has_code) put_u32(&frame, static_cast<uint32_t>(m.code));
  if (layout->has_key) {
    put_u32(&frame, static_cast<uint32_t>(m.key.size()));
    frame += m.key;
  }
  if (layout->has_value) {
    put_u32(&frame, static_cast<uint32_t>(m.value.size()));
    frame += m.value;
  }
  return frame;
}

Result<Message> decode_payload(std::string_view payload) {
  if (payload.empty()) return protocol_error("empty message");
  const Layout* layout = find_layout(static_cast<uint8_t>(payload[0]));
  if (layout == nullptr) {
    return protocol_error("unknown message type " +
                          std::to_string(static_cast<unsigned char>(payload[0])));
  }
  Message m;
  m.type = layout->type;
  Cursor c(payload.substr(1));
  uint32_t v = 0;
  bool ok = true;
  if (ok && layout->has_pe) {
    ok = c.read_u32(&v);
    m.pe = static_cast<int32_t>(v);
  }
  if (ok && layout->has_code) {
    ok = c.read_u32(&v);
    m.code = static_cast<int32_t>(v);
  }
  if (ok && layout->has_key) ok = c.read_string(&m.key);
  if (ok && layout->has_value) ok = c.read_string(&m.value);
  if (!ok) return protocol_error(std::string("truncated ") + layout->name + " message");
  if (c.remaining() != 0) {
    return protocol_error(std::string(layout->name) + " message has " +
                          std::to_string(c.remaining()) + " trailing bytes");
  }
  return m;
}

void FrameReader::append(const char* data, size_t size) {
  if (consumed_ > 0 && consumed_ >= buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(data, size);
}

Result<std::optional<Message>> FrameReader::next() {
  size_t available = buffer_.size() - consumed_;
  if (available < kFrameHeaderBytes) return std::optional<Message>();
  uint32_t length = get_u32(buffer_.data() + consumed_);
  if (length > max_payload_) {
    return protocol_error("message of " + std::to_string(length) + " bytes exceeds the limit of " +
                          std::to_string(max_payload_) + " bytes");
  }
  if (available - kFrameHeaderBytes < length) return std::optional<Message>();
  Result<Message> m =
      decode_payload(std::string_view(buffer_.data() + consumed_ + kFrameHeaderBytes, length));
  if (!m.is_ok()) return m.status();
  consumed_ += kFrameHeaderBytes + length;
  return std::optional<Message>(std::move(*m));
}

std::string printable(std::string_view bytes, size_t limit) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (out.size() >= limit) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[8];
      snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace gasket::bootstrap::protocol
