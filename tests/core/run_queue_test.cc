// core/run_queue.h: the runnable-task count read from /proc/loadavg's text, and the reader on this
// machine (single process).
#define BOOST_TEST_MODULE run_queue
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <string>

#include "core/run_queue.h"

using gasket::core::runnable_tasks;

BOOST_AUTO_TEST_CASE(the_fourth_field_before_its_slash) {
  BOOST_TEST(runnable_tasks("0.08 0.05 0.10 3/181 12345\n") == 3);
  BOOST_TEST(runnable_tasks("12.50 9.01 4.00 17/1043 99") == 17);
  BOOST_TEST(runnable_tasks("0.00 0.00 0.00 0/1 1") == 0);
}

BOOST_AUTO_TEST_CASE(other_shapes_are_refused) {
  BOOST_TEST(runnable_tasks("") == -1);
  BOOST_TEST(runnable_tasks("0.08 0.05 0.10") == -1);
  BOOST_TEST(runnable_tasks("0.08 0.05 0.10 x/181 1") == -1);
  BOOST_TEST(runnable_tasks("0.08 0.05 0.10 3 181") == -1);
  BOOST_TEST(runnable_tasks("0.08 0.05 0.10 -2/181 1") == -1);
}

BOOST_AUTO_TEST_CASE(this_machine_counts_the_reader_and_its_cpus) {
  std::ifstream file("/proc/loadavg");
  std::string text;
  std::getline(file, text);
  BOOST_TEST(runnable_tasks(text.c_str()) >= 1, "'" << text << "': the reading process runs");
  gasket::core::RunQueue queue;
  BOOST_TEST(queue.cpus() == static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  BOOST_TEST(queue.runnable() >= 1, "the fresh count includes this reader");
}
