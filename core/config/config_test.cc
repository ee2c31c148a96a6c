#define BOOST_TEST_MODULE config
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>

#include "core/config/config.h"

using gasket::config::Config;
using gasket::config::Knob;

namespace {
gasket::config::Lookup from(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

BOOST_AUTO_TEST_CASE(defaults_apply_when_nothing_is_set) {
  auto c = Config::load(from({}));
  BOOST_REQUIRE(c.is_ok());
  BOOST_TEST(c->is_auto(Knob::HEAP_SIZE));  // the runtime sizes it from the node
  BOOST_TEST(c->size(Knob::HEAP_SIZE) == 0u);
  BOOST_TEST(c->text(Knob::TRANSPORT) == "auto");
  BOOST_TEST(c->origin(Knob::HEAP_SIZE) == "default");
}

BOOST_AUTO_TEST_CASE(standard_alias_and_gasket_name_precedence) {
  auto c = Config::load(from({{"SHMEM_SYMMETRIC_SIZE", "1G"}}));
  BOOST_REQUIRE(c.is_ok());
  BOOST_TEST(c->size(Knob::HEAP_SIZE) == 1ull << 30);
  BOOST_TEST(c->origin(Knob::HEAP_SIZE) == "SHMEM_SYMMETRIC_SIZE");
  auto both = Config::load(from({{"SHMEM_SYMMETRIC_SIZE", "1G"}, {"GASKET_HEAP_SIZE", "32M"}}));
  BOOST_REQUIRE(both.is_ok());
  BOOST_TEST(both->size(Knob::HEAP_SIZE) == 32ull << 20);
}

// OpenSHMEM 1.6: the deprecated SMA_ variables are still supported (the SHMEM_ one wins), and
// SHMEM_INFO/SHMEM_DEBUG take any value.
BOOST_AUTO_TEST_CASE(deprecated_sma_names_of_openshmem_variables) {
  auto c = Config::load(from({{"SMA_SYMMETRIC_SIZE", "3.1m"}, {"SMA_DEBUG", "1"}, {"SMA_INFO", "yes"}}));
  BOOST_REQUIRE(c.is_ok());
  BOOST_TEST(c->size(Knob::HEAP_SIZE) == 3250586u);
  BOOST_TEST(c->origin(Knob::HEAP_SIZE) == "SMA_SYMMETRIC_SIZE");
  BOOST_TEST(c->boolean(Knob::SHMEM_DEBUG));
  BOOST_TEST(c->boolean(Knob::SHMEM_INFO));
  auto both = Config::load(from({{"SMA_SYMMETRIC_SIZE", "1G"}, {"SHMEM_SYMMETRIC_SIZE", "32M"}}));
  BOOST_REQUIRE(both.is_ok());
  BOOST_TEST(both->size(Knob::HEAP_SIZE) == 32ull << 20);
  BOOST_TEST(both->origin(Knob::HEAP_SIZE) == "SHMEM_SYMMETRIC_SIZE");
  // "Any" value turns an OpenSHMEM switch on; a boolean word keeps its meaning; GASKET_ stays strict
  auto any = Config::load(from({{"SHMEM_DEBUG", "verbose"}, {"SMA_INFO", "please"}}));
  BOOST_REQUIRE(any.is_ok());
  BOOST_TEST(any->boolean(Knob::SHMEM_DEBUG));
  BOOST_TEST(any->boolean(Knob::SHMEM_INFO));
  auto off = Config::load(from({{"SHMEM_DEBUG", "0"}}));
  BOOST_REQUIRE(off.is_ok());
  BOOST_TEST(!off->boolean(Knob::SHMEM_DEBUG));
  BOOST_TEST(!Config::load(from({{"GASKET_SHMEM_DEBUG", "verbose"}})).is_ok());
  auto gasket_name = Config::load(from({{"SMA_HEAP_SIZE", "1G"}}));  // no SMA_ name for GASKET_ knobs
  BOOST_REQUIRE(gasket_name.is_ok());
  BOOST_TEST(gasket_name->origin(Knob::HEAP_SIZE) == "default");
}

BOOST_AUTO_TEST_CASE(auto_size_is_taken_only_by_knobs_that_declare_it) {
  auto c = Config::load(from({{"GASKET_HEAP_SIZE", "auto"}, {"GASKET_MPI_ALLOC_MEM_POOL", "16M"}}));
  BOOST_REQUIRE(c.is_ok());
  BOOST_TEST(c->is_auto(Knob::HEAP_SIZE));
  BOOST_TEST(!c->is_auto(Knob::MPI_ALLOC_MEM_POOL));
  BOOST_TEST(c->size(Knob::MPI_ALLOC_MEM_POOL) == 16ull << 20);
  c->resolve(Knob::HEAP_SIZE, 1ull << 30);
  BOOST_TEST(c->size(Knob::HEAP_SIZE) == 1ull << 30);
  BOOST_TEST(c->text(Knob::HEAP_SIZE) == "auto");
  auto bad = Config::load(from({{"GASKET_MPI_RNDV_BOUNCE", "auto"}}));
  BOOST_REQUIRE(!bad.is_ok());
  BOOST_TEST(bad.status().message().find("GASKET_MPI_RNDV_BOUNCE='auto'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_values_are_rejected_naming_the_variable) {
  auto c = Config::load(from({{"GASKET_HEAP_SIZE", "12X"}}));
  BOOST_REQUIRE(!c.is_ok());
  BOOST_TEST(c.status().message().find("GASKET_HEAP_SIZE='12X'") != std::string::npos);
  auto t = Config::load(from({{"GASKET_TRANSPORT", "carrier-pigeon"}}));
  BOOST_REQUIRE(!t.is_ok());
  BOOST_TEST(t.status().message().find("not one of auto|ucx|pciddc") != std::string::npos);
  auto i = Config::load(from({{"GASKET_SPIN_COUNT", "-4"}}));
  BOOST_TEST(!i.is_ok());
}

BOOST_AUTO_TEST_CASE(every_knob_is_documented) {
  for (const auto& s : gasket::config::knobs()) {
    BOOST_TEST_INFO(s.name);
    BOOST_TEST(std::string(s.doc).size() > 10u);
    BOOST_TEST(std::string(s.name).rfind("GASKET_", 0) == 0u);
  }
  BOOST_TEST(gasket::config::markdown_reference().find("`GASKET_HEAP_SIZE`") != std::string::npos);
}
