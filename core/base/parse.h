// Parsing of configuration values: sizes with K/M/G/T suffixes, integers, booleans.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"

namespace gasket {

// "4096", "64K", "64k", "512M", "2G", "1T" (binary multiples), optional trailing "B"/"iB"; a
// decimal fraction ("3.1m", "1.5G") is rounded up to whole bytes after the multiplier.
// Rejects empty text, negative numbers, junk and values that overflow 64 bits.
Result<uint64_t> parse_size(const std::string& text);
// Decimal integer in [min, max].
Result<int64_t> parse_int(const std::string& text, int64_t min, int64_t max);
// 1/0, yes/no, true/false, on/off (any case).
Result<bool> parse_bool(const std::string& text);
// 65536 -> "64K"; exact multiples only, otherwise plain bytes.
std::string format_size(uint64_t bytes);

}  // namespace gasket
