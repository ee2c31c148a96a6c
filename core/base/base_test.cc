#define BOOST_TEST_MODULE base
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/copy.h"
#include "core/base/parse.h"

using gasket::parse_bool;
using gasket::parse_int;
using gasket::parse_size;

BOOST_AUTO_TEST_CASE(sizes_with_suffixes) {
  BOOST_TEST(parse_size("0").value() == 0u);
  BOOST_TEST(parse_size("4096").value() == 4096u);
  BOOST_TEST(parse_size("64K").value() == 65536u);
  BOOST_TEST(parse_size("64k").value() == 65536u);
  BOOST_TEST(parse_size("512M").value() == 512ull << 20);
  BOOST_TEST(parse_size("2G").value() == 2ull << 30);
  BOOST_TEST(parse_size("1T").value() == 1ull << 40);
  BOOST_TEST(parse_size("8MiB").value() == 8ull << 20);
  BOOST_TEST(parse_size("8MB").value() == 8ull << 20);
  BOOST_TEST(parse_size("100B").value() == 100u);
}

// OpenSHMEM's SHMEM_SYMMETRIC_SIZE: "a positive decimal value (integer or floating point) with an
// optional character suffix", the size at least the integer ceiling of the product ("3.1m" is
// 3250586 bytes in the text itself).
BOOST_AUTO_TEST_CASE(decimal_fractions_round_up_after_the_multiplier) {
  BOOST_TEST(parse_size("3.1m").value() == 3250586u);
  BOOST_TEST(parse_size("1.5G").value() == 1536ull << 20);
  BOOST_TEST(parse_size("0.5K").value() == 512u);
  BOOST_TEST(parse_size("2.5").value() == 3u);
  BOOST_TEST(parse_size("1.0000001k").value() == 1025u);
  BOOST_TEST(parse_size("0.25t").value() == 256ull << 30);
}

BOOST_AUTO_TEST_CASE(bad_sizes_are_rejected_with_a_message) {
  for (const char* bad : {"", "M", "-1", "12X", "99999999999999999999", "17179869184G", "iB",
                          " 4", ".5M", "1.M", "1.5.2M", "3.1kk"}) {
    auto r = parse_size(bad);
    BOOST_TEST_INFO("input '" << bad << "'");
    BOOST_TEST(!r.is_ok());
    BOOST_TEST(r.status().message().find("bad size") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(integers_and_booleans) {
  BOOST_TEST(parse_int("42", 0, 100).value() == 42);
  BOOST_TEST(parse_int("-3", -5, 5).value() == -3);
  BOOST_TEST(!parse_int("101", 0, 100).is_ok());
  BOOST_TEST(!parse_int("4x", 0, 100).is_ok());
  BOOST_TEST(!parse_int("", 0, 100).is_ok());
  BOOST_TEST(parse_bool("yes").value());
  BOOST_TEST(parse_bool("ON").value());
  BOOST_TEST(!parse_bool("0").value());
  BOOST_TEST(!parse_bool("maybe").is_ok());
}

BOOST_AUTO_TEST_CASE(size_formatting) {
  BOOST_TEST(gasket::format_size(65536) == "64K");
  BOOST_TEST(gasket::format_size(3ull << 30) == "3G");
  BOOST_TEST(gasket::format_size(1000) == "1000");
  BOOST_TEST(gasket::format_size(0) == "0");
}

// copy_bytes below, at and past kStringMoveFrom (copy_large: `rep movsb` where the CPU has ERMS),
// at odd offsets and lengths: every byte of the range lands, none outside it.
BOOST_AUTO_TEST_CASE(copies_of_every_size_land_exactly) {
  using gasket::base::copy_bytes;
  using gasket::base::kStringMoveFrom;
  const size_t max = kStringMoveFrom * 3 + 64;
  std::vector<unsigned char> src(max), dst(max);
  for (size_t i = 0; i < max; ++i) src[i] = static_cast<unsigned char>(i * 7 + i / 251);
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, kStringMoveFrom - 1, kStringMoveFrom,
                       kStringMoveFrom + 1, kStringMoveFrom * 2 + 13, kStringMoveFrom * 3}) {
    for (size_t at : {size_t{0}, size_t{3}, size_t{64}}) {
      std::fill(dst.begin(), dst.end(), 0xee);
      copy_bytes(dst.data() + at, src.data() + (at ^ 1), bytes);
      BOOST_TEST_INFO("bytes " << bytes << " at " << at);
      BOOST_TEST(std::memcmp(dst.data() + at, src.data() + (at ^ 1), bytes) == 0);
      BOOST_TEST(std::count(dst.begin(), dst.begin() + at, 0xee) == static_cast<long>(at));
      BOOST_TEST(std::count(dst.begin() + at + bytes, dst.end(), 0xee) == static_cast<long>(max - at - bytes));
    }
  }
}

// The CPUID answer agrees with the kernel's view of the CPU (the "erms" flag of /proc/cpuinfo).
BOOST_AUTO_TEST_CASE(string_moves_follow_the_cpu) {
#if defined(__x86_64__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  bool erms = false;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      erms = (line + " ").find(" erms ") != std::string::npos;
      break;
    }
  }
  BOOST_TEST(gasket::base::fast_string_moves() == erms);
#else
  BOOST_TEST(!gasket::base::fast_string_moves());
#endif
}
