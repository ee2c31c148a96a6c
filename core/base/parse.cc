#include "core/base/parse.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace gasket {

Result<uint64_t> parse_size(const std::string& text) {
  std::string t = text;
  auto bad = [&](const char* why) {
    return invalid_argument("bad size '" + text + "': " + why +
                            " (expected a number with an optional K, M, G or T suffix)");
  };
  if (t.empty()) return bad("empty");
  size_t i = 0;
  uint64_t value = 0;
  if (!std::isdigit(static_cast<unsigned char>(t[0]))) return bad("does not start with a digit");
  for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
    uint64_t d = static_cast<uint64_t>(t[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) return bad("too large");
    value = value * 10 + d;
  }
  // A decimal fraction (OpenSHMEM's SHMEM_SYMMETRIC_SIZE allows "3.1m"): its digits, applied
  // after the multiplier and rounded up, so "3.1M" is ceil(3.1 * 2^20) bytes.
  uint64_t fraction = 0, fraction_scale = 1;
  if (i < t.size() && t[i] == '.') {
    size_t first = ++i;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      if (i - first == 18) return bad("more than 18 digits after the decimal point");
      fraction = fraction * 10 + static_cast<uint64_t>(t[i] - '0');
      fraction_scale *= 10;
    }
    if (i == first) return bad("no digit after the decimal point");
  }
  std::string suffix = t.substr(i);
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (suffix.size() >= 2 && suffix.compare(suffix.size() - 2, 2, "IB") == 0) {
    suffix.resize(suffix.size() - 2);
    if (suffix.empty()) return bad("'iB' needs a K, M, G or T before it");
  } else if (!suffix.empty() && suffix.back() == 'B') {
    suffix.pop_back();
  }
  unsigned shift = 0;
  if (suffix.empty()) shift = 0;
  else if (suffix == "K") shift = 10;
  else if (suffix == "M") shift = 20;
  else if (suffix == "G") shift = 30;
  else if (suffix == "T") shift = 40;
  else return bad("unknown suffix");
  if (shift != 0 && value > (std::numeric_limits<uint64_t>::max() >> shift)) return bad("too large");
  unsigned __int128 scaled_fraction = (static_cast<unsigned __int128>(fraction) << shift);
  uint64_t fraction_bytes =
      static_cast<uint64_t>((scaled_fraction + fraction_scale - 1) / fraction_scale);
  uint64_t bytes = value << shift;
  if (fraction_bytes > std::numeric_limits<uint64_t>::max() - bytes) return bad("too large");
  return bytes + fraction_bytes;
}

Result<int64_t> parse_int(const std::string& text, int64_t min, int64_t max) {
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos, 10);
  } catch (...) {
    return invalid_argument("bad integer '" + text + "'");
  }
  if (pos != text.size()) return invalid_argument("bad integer '" + text + "'");
  if (v < min || v > max) {
    return invalid_argument("integer " + text + " out of range [" + std::to_string(min) + ", " +
                            std::to_string(max) + "]");
  }
  return static_cast<int64_t>(v);
}

Result<bool> parse_bool(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (t == "1" || t == "yes" || t == "true" || t == "on" || t == "y") return true;
  if (t == "0" || t == "no" || t == "false" || t == "off" || t == "n") return false;
  return invalid_argument("bad boolean '" + text + "' (expected 1/0, yes/no, true/false, on/off)");
}

std::string format_size(uint64_t bytes) {
  static const char kSuffix[] = {'T', 'G', 'M', 'K'};
  for (int i = 0; i < 4; ++i) {
    unsigned shift = static_cast<unsigned>(40 - 10 * i);
    uint64_t unit = uint64_t{1} << shift;
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes >> shift) + kSuffix[i];
  }
  return std::to_string(bytes);
}

}  // namespace gasket
