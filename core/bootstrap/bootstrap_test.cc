// Unit tests of core/bootstrap pieces that need no launcher: the PMI-1 wire helpers, the
// detection of other launchers' variables, and the PMI-1 client against an in-process process
// manager with small limits (values split in pieces, refused puts, missing keys).
#define BOOST_TEST_MODULE bootstrap
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/name_table.h"
#include "core/bootstrap/pmi_wire.h"
#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap {
namespace {

EnvLookup lookup_in(const std::map<std::string, std::string>& env) {
  return [env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

BOOST_AUTO_TEST_CASE(pmi_line_fields) {
  auto f = pmi::parse_line("cmd=get_result rc=0 msg=success value=(vector,(0,1,1))");
  BOOST_REQUIRE(f.is_ok());
  BOOST_CHECK_EQUAL(f->at("cmd"), "get_result");
  BOOST_CHECK_EQUAL(f->at("rc"), "0");
  BOOST_CHECK_EQUAL(f->at("value"), "(vector,(0,1,1))");
  auto empty_value = pmi::parse_line("cmd=put_result  rc=0 msg=");
  BOOST_REQUIRE(empty_value.is_ok());
  BOOST_CHECK_EQUAL(empty_value->at("msg"), "");
  BOOST_CHECK(!pmi::parse_line("cmd=maxes garbage").is_ok());
  BOOST_CHECK(!pmi::parse_line("rc=0").is_ok());
  BOOST_CHECK(!pmi::parse_line("=x cmd=a").is_ok());
}

BOOST_AUTO_TEST_CASE(pmi_hex_round_trip) {
  std::string bytes("a\0\xff b=\n", 7);
  BOOST_CHECK_EQUAL(pmi::hex_encode(bytes), "6100ff20623d0a");
  auto back = pmi::hex_decode(pmi::hex_encode(bytes));
  BOOST_REQUIRE(back.is_ok());
  BOOST_CHECK(*back == bytes);
  BOOST_CHECK_EQUAL(*pmi::hex_decode("FF"), "\xff");
  BOOST_CHECK(!pmi::hex_decode("abc").is_ok());
  BOOST_CHECK(!pmi::hex_decode("zz").is_ok());
}

BOOST_AUTO_TEST_CASE(pmi_wire_safe) {
  BOOST_CHECK(pmi::is_wire_safe("segment.data"));
  BOOST_CHECK(!pmi::is_wire_safe(""));
  BOOST_CHECK(!pmi::is_wire_safe("a b"));
  BOOST_CHECK(!pmi::is_wire_safe("a=b"));
  BOOST_CHECK(!pmi::is_wire_safe(std::string("a\0b", 3)));
}

BOOST_AUTO_TEST_CASE(foreign_launcher_variables_named) {
  BOOST_CHECK(foreign_launcher_variables(lookup_in({})).empty());
  BOOST_CHECK(foreign_launcher_variables(lookup_in({{"HOME", "/root"}, {"SLURM_JOB_ID", "7"}})).empty());
  auto seen = foreign_launcher_variables(lookup_in({{"PMI_SIZE", "2"}, {"PMI_RANK", "1"}}));
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);
  BOOST_CHECK_EQUAL(seen[0], "PMI_RANK=1");
  BOOST_CHECK_EQUAL(seen[1], "PMI_SIZE=2");
  seen = foreign_launcher_variables(lookup_in({{"OMPI_COMM_WORLD_SIZE", "4"}}));
  BOOST_REQUIRE_EQUAL(seen.size(), 1u);
  BOOST_CHECK_EQUAL(seen[0], "OMPI_COMM_WORLD_SIZE=4");
  // srun: one task is a singleton, several are not.
  BOOST_CHECK(foreign_launcher_variables(lookup_in({{"SLURM_STEP_NUM_TASKS", "1"}, {"SLURM_PROCID", "0"}})).empty());
  seen = foreign_launcher_variables(lookup_in({{"SLURM_STEP_NUM_TASKS", "3"}, {"SLURM_PROCID", "2"}}));
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);
  BOOST_CHECK_EQUAL(seen[0], "SLURM_STEP_NUM_TASKS=3");
}

// A PMI-1 process manager for one process on the other end of a socket pair, with Hydra's
// answers but a vallen_max of 64, so that gasket's values travel in many pieces.
class FakeProcessManager {
 public:
  explicit FakeProcessManager(int fd) : fd_(fd), thread_([this] { serve(); }) {}
  ~FakeProcessManager() {
    thread_.join();
    ::close(fd_);
  }
  size_t puts() const { return puts_; }

 private:
  void answer(const std::string& line) {
    std::string l = line + "\n";
    BOOST_REQUIRE_EQUAL(::send(fd_, l.data(), l.size(), MSG_NOSIGNAL), static_cast<ssize_t>(l.size()));
  }

  void serve() {
    std::string buffer;
    for (;;) {
      size_t nl;
      while ((nl = buffer.find('\n')) == std::string::npos) {
        char buf[4096];
        ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        if (n <= 0) return;
        buffer.append(buf, static_cast<size_t>(n));
      }
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      auto f = pmi::parse_line(line);
      BOOST_REQUIRE(f.is_ok());
      const std::string& cmd = f->at("cmd");
      if (cmd == "init") {
        answer("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
      } else if (cmd == "get_maxes") {
        answer("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=64");
      } else if (cmd == "get_my_kvsname") {
        answer("cmd=my_kvsname kvsname=kvs_fake_0");
      } else if (cmd == "put") {
        BOOST_CHECK_LE(f->at("value").size(), 63u);
        BOOST_CHECK_LE(f->at("key").size(), 63u);
        if (kvs_.count(f->at("key")) != 0) {
          answer("cmd=put_result rc=-1 msg=duplicate_key");
        } else {
          staged_[f->at("key")] = f->at("value");
          ++puts_;
          answer("cmd=put_result rc=0 msg=success");
        }
      } else if (cmd == "barrier_in") {
        kvs_.insert(staged_.begin(), staged_.end());  // puts become visible at the barrier, as in Hydra
        staged_.clear();
        answer("cmd=barrier_out");
      } else if (cmd == "get") {
        auto it = kvs_.find(f->at("key"));
        answer(it == kvs_.end() ? "cmd=get_result rc=-1 msg=key_" + f->at("key") + "_not_found value=unknown"
                                : "cmd=get_result rc=0 msg=success value=" + it->second);
      } else if (cmd == "finalize") {
        answer("cmd=finalize_ack");
        return;
      } else {
        answer("cmd=unknown");
      }
    }
  }

  const int fd_;
  std::map<std::string, std::string> staged_;
  std::map<std::string, std::string> kvs_;
  size_t puts_ = 0;
  std::thread thread_;
};

BOOST_AUTO_TEST_CASE(pmi_client_values_in_pieces) {
  int fds[2];
  BOOST_REQUIRE_EQUAL(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  FakeProcessManager manager(fds[1]);
  auto b = detail::connect_pmi(lookup_in({{"PMI_FD", std::to_string(fds[0])}, {"PMI_RANK", "0"}, {"PMI_SIZE", "1"}}));
  BOOST_REQUIRE_MESSAGE(b.is_ok(), b.status().message());
  Bootstrap& boot = **b;
  BOOST_CHECK_EQUAL(boot.rank(), 0);
  BOOST_CHECK_EQUAL(boot.size(), 1);
  BOOST_CHECK_EQUAL(boot.job_id(), "hkvs_fake_0");
  BOOST_CHECK_EQUAL(boot.secret().size(), 32u);

  std::string value;
  for (int i = 0; i < 1000; ++i) value += static_cast<char>(i * 7);
  std::string binary_key("k\0 =", 4);
  BOOST_REQUIRE(boot.put("big", value).is_ok());
  BOOST_REQUIRE(boot.put("empty", "").is_ok());
  BOOST_REQUIRE(boot.put(binary_key, "x").is_ok());
  // Not visible before the fence: fails at once, naming the PE and the key.
  auto early = boot.get(0, "big");
  BOOST_REQUIRE(!early.is_ok());
  const std::string& why = early.status().message();
  BOOST_CHECK_MESSAGE(why.find("get(pe 0, key 'big'): PE 0 did not put it before the last fence") != std::string::npos,
                      why);
  BOOST_REQUIRE(boot.fence().is_ok());
  auto big = boot.get(0, "big");
  BOOST_REQUIRE_MESSAGE(big.is_ok(), big.status().message());
  BOOST_CHECK(*big == value);
  BOOST_CHECK(manager.puts() > 2000 / 62);  // 2000 hex digits in pieces of at most 54
  BOOST_CHECK_EQUAL(*boot.get(0, "empty"), "");
  BOOST_CHECK_EQUAL(*boot.get(0, binary_key), "x");

  auto out_of_range = boot.get(1, "big");
  BOOST_REQUIRE(!out_of_range.is_ok());
  BOOST_CHECK_MESSAGE(out_of_range.status().message().find("PE out of range: the job has 1 PEs") != std::string::npos,
                      out_of_range.status().message());
  auto duplicate = boot.put("empty", "again");
  BOOST_REQUIRE(!duplicate.is_ok());
  BOOST_CHECK_MESSAGE(duplicate.message().find("refused by the process manager: duplicate_key") !=
                          std::string::npos,
                      duplicate.message());
  auto long_key = boot.put(std::string(70, 'k'), "v");
  BOOST_REQUIRE(!long_key.is_ok());
  BOOST_CHECK_MESSAGE(long_key.message().find("longer than the process manager's 63 characters") !=
                          std::string::npos,
                      long_key.message());
  // A name that fits, but not with the suffix of its 38th piece ("#37"): refused before any put.
  size_t puts_before = manager.puts();
  auto long_piece = boot.put(std::string(58, 'p'), value);
  BOOST_REQUIRE(!long_piece.is_ok());
  BOOST_CHECK_MESSAGE(long_piece.message().find("#37' is longer") != std::string::npos, long_piece.message());
  BOOST_CHECK_EQUAL(manager.puts(), puts_before);
  BOOST_CHECK(boot.finalize().is_ok());
}

BOOST_AUTO_TEST_CASE(pmi_client_bad_environment) {
  auto missing = detail::connect_pmi(lookup_in({{"PMI_FD", "0"}, {"PMI_SIZE", "2"}}));
  BOOST_REQUIRE(!missing.is_ok());
  BOOST_CHECK_MESSAGE(missing.status().message().find("PMI_RANK=(unset)") != std::string::npos,
                      missing.status().message());
  auto rank = detail::connect_pmi(lookup_in({{"PMI_FD", "0"}, {"PMI_RANK", "2"}, {"PMI_SIZE", "2"}}));
  BOOST_REQUIRE(!rank.is_ok());
  BOOST_CHECK_EQUAL(rank.status().message(), "bootstrap: bad PMI_RANK='2': must be less than PMI_SIZE=2");
}

}  // namespace
}  // namespace gasket::bootstrap

// A fresh name directory under the test's temporary directory.
static std::string name_directory(const std::string& leaf) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/names-" + leaf;
}

// MPI_Publish_name's table: a taken name and an unknown one are refused, naming the service.
BOOST_AUTO_TEST_CASE(name_table_publish_lookup_unpublish) {
  gasket::bootstrap::NameTable names(name_directory("basic"));
  BOOST_REQUIRE(names.publish("svc", "gasket-port:127.0.0.1:5:1").is_ok());
  gasket::Status taken = names.publish("svc", "other");
  BOOST_REQUIRE(!taken.is_ok());
  BOOST_CHECK_MESSAGE(taken.message().find("'svc' is already published") != std::string::npos, taken.message());
  BOOST_CHECK_EQUAL(*names.lookup("svc"), "gasket-port:127.0.0.1:5:1");
  BOOST_REQUIRE(names.unpublish("svc").is_ok());
  auto gone = names.lookup("svc");
  BOOST_REQUIRE(!gone.is_ok());
  BOOST_CHECK_MESSAGE(gone.status().message().find("no service named 'svc'") != std::string::npos,
                      gone.status().message());
  BOOST_CHECK(!names.unpublish("svc").is_ok());
  BOOST_CHECK(!names.publish(std::string(gasket::bootstrap::NameTable::kMaxNameBytes + 1, 'x'), "p").is_ok());
}

// Two tables on one directory (two separate launchers) see each other's names, binary-safe; a
// table's names go with it.
BOOST_AUTO_TEST_CASE(name_table_shared_between_launchers) {
  std::string dir = name_directory("shared");
  gasket::bootstrap::NameTable second(dir);
  std::string name("a/b c\0", 6), port("gasket-port:127.0.0.1:9:2\nline", 30);
  {
    gasket::bootstrap::NameTable first(dir);
    BOOST_REQUIRE(first.publish(name, port).is_ok());
    BOOST_CHECK_EQUAL(*second.lookup(name), port);
    BOOST_CHECK(!second.publish(name, "x").is_ok());
  }
  BOOST_CHECK(!second.lookup(name).is_ok());
  BOOST_REQUIRE(second.publish(name, "y").is_ok());
  BOOST_REQUIRE(second.unpublish(name).is_ok());
}

// An entry whose publisher has ended counts as unpublished and can be taken again.
BOOST_AUTO_TEST_CASE(name_table_entry_of_ended_publisher) {
  std::string dir = name_directory("ended");
  gasket::bootstrap::NameTable names(dir);
  BOOST_REQUIRE(names.publish("probe", "p").is_ok());  // creates the directory
  pid_t child = ::fork();
  if (child == 0) _exit(0);
  int status = 0;
  BOOST_REQUIRE_EQUAL(::waitpid(child, &status, 0), child);
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  {
    std::ofstream entry(dir + "/" + "737663");  // "svc" in hex
    entry << host << ' ' << child << '\n' << "gasket-port:stale";
  }
  auto stale = names.lookup("svc");
  BOOST_REQUIRE(!stale.is_ok());
  BOOST_CHECK_MESSAGE(stale.status().message().find("has ended") != std::string::npos, stale.status().message());
  BOOST_REQUIRE(names.publish("svc", "fresh").is_ok());
  BOOST_CHECK_EQUAL(*names.lookup("svc"), "fresh");
}

// A directory that is a file is refused, naming it.
BOOST_AUTO_TEST_CASE(name_table_unusable_directory) {
  std::string file = name_directory("a-file");
  { std::ofstream(file) << "x"; }
  gasket::bootstrap::NameTable names(file);
  gasket::Status s = names.publish("svc", "p");
  BOOST_REQUIRE(!s.is_ok());
  BOOST_CHECK_MESSAGE(s.message().find(file + " (GASKET_NAME_DIR): not a directory") != std::string::npos, s.message());
}

// A spawn request survives the wire, arguments with any bytes included; truncations are refused.
BOOST_AUTO_TEST_CASE(spawn_request_round_trip) {
  gasket::bootstrap::SpawnRequest request;
  request.parent_port = "gasket-port:127.0.0.1:4000:3";
  request.apps.push_back({"./a", {"x", std::string("y\0z", 3), ""}, 3, "/tmp", "/opt/bin:/usr/bin"});
  request.apps.push_back({"b", {}, 1, "", ""});
  std::string bytes = gasket::bootstrap::protocol::encode_spawn(request);
  auto back = gasket::bootstrap::protocol::decode_spawn(bytes);
  BOOST_REQUIRE(back.is_ok());
  BOOST_CHECK_EQUAL(back->parent_port, request.parent_port);
  BOOST_REQUIRE_EQUAL(back->apps.size(), 2u);
  BOOST_CHECK_EQUAL(back->apps[0].command, "./a");
  BOOST_CHECK(back->apps[0].args == request.apps[0].args);
  BOOST_CHECK_EQUAL(back->apps[0].maxprocs, 3);
  BOOST_CHECK_EQUAL(back->apps[0].wdir, "/tmp");
  BOOST_CHECK_EQUAL(back->apps[0].path, "/opt/bin:/usr/bin");
  BOOST_CHECK_EQUAL(back->apps[1].command, "b");
  BOOST_CHECK(back->apps[1].args.empty());
  BOOST_CHECK(!gasket::bootstrap::protocol::decode_spawn(bytes.substr(0, bytes.size() - 2)).is_ok());
}
