// Shared by the multi-PE test programs: every PE runs the same Boost.Test module; a global
// fixture starts and stops the runtime, so test cases may use collectives in the same order on
// all PEs. Failures name the PE in their message.
//
// A program that must set knobs before init defines GASKET_TEST_ENVIRONMENT() (e.g. a setenv)
// before including this header.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>

#include "core/gasket.h"

#ifndef GASKET_TEST_ENVIRONMENT
#define GASKET_TEST_ENVIRONMENT() ((void)0)
#endif

struct RuntimeFixture {
  RuntimeFixture() {
    GASKET_TEST_ENVIRONMENT();
    gasket::Status st = gasket::init();
    if (!st.is_ok()) {
      std::fprintf(stderr, "init failed: %s\n", st.message().c_str());
      std::_Exit(2);
    }
  }
  ~RuntimeFixture() {
    gasket::Status st = gasket::finalize();
    if (!st.is_ok()) {
      std::fprintf(stderr, "finalize failed: %s\n", st.message().c_str());
      std::_Exit(3);
    }
  }
};
BOOST_TEST_GLOBAL_FIXTURE(RuntimeFixture);

// Test assertions that say which PE failed.
#define PE_TEST(cond) BOOST_TEST((cond), "PE " << gasket::my_pe() << ": " #cond)
// Evaluates each side once (the sides may be atomics with side effects).
#define PE_EQUAL(a, b)                                                                      \
  do {                                                                                      \
    const auto pe_equal_a_ = (a);                                                           \
    const auto pe_equal_b_ = (b);                                                           \
    BOOST_TEST(pe_equal_a_ == pe_equal_b_, "PE " << gasket::my_pe() << ": " #a " == " #b " [" \
                                                 << pe_equal_a_ << " != " << pe_equal_b_ << "]"); \
  } while (0)
