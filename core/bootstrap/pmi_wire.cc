#include "core/bootstrap/pmi_wire.h"

#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap::pmi {

Result<std::map<std::string, std::string>> parse_line(std::string_view line) {
  std::map<std::string, std::string> fields;
  size_t at = 0;
  while (at < line.size()) {
    if (line[at] == ' ') {
      ++at;
      continue;
    }
    size_t end = line.find(' ', at);
    if (end == std::string_view::npos) end = line.size();
    std::string_view field = line.substr(at, end - at);
    size_t eq = field.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status(StatusCode::kProtocolError, "PMI: malformed field '" + protocol::printable(field) +
                                                    "' in line '" + protocol::printable(line) + "'");
    }
    fields[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
    at = end;
  }
  if (fields.count("cmd") == 0) {
    return Status(StatusCode::kProtocolError, "PMI: line without cmd= '" + protocol::printable(line) + "'");
  }
  return fields;
}

std::string hex_encode(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

Result<std::string> hex_decode(std::string_view hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) {
    return Status(StatusCode::kProtocolError, "PMI: hex value of odd length " + std::to_string(hex.size()));
  }
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int high = digit(hex[i]);
    int low = digit(hex[i + 1]);
    if (high < 0 || low < 0) {
      return Status(StatusCode::kProtocolError,
                    "PMI: not a hex digit at offset " + std::to_string(high < 0 ? i : i + 1) + " of a value");
    }
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

bool is_wire_safe(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c <= ' ' || c > '~' || c == '=') return false;
  }
  return true;
}

}  // namespace gasket::bootstrap::pmi
