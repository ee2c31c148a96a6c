// Tests of gasketrun and the bootstrap: real jobs of the probe program (probe.cc) under the real
// launcher binary, plus unit tests of the store protocol and the job environment.
#define BOOST_TEST_MODULE launcher
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/job_identity.h"
#include "core/bootstrap/store_protocol.h"

extern char** environ;

namespace {

namespace protocol = gasket::bootstrap::protocol;

std::string runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  std::string base = srcdir != nullptr ? srcdir : ".";
  return base + "/gasket/" + path;
}

const std::string& gasketrun() {
  static const std::string path = runfile("tools/gasketrun/gasketrun");
  return path;
}

const std::string& probe() {
  static const std::string path = runfile("tests/launcher/probe");
  return path;
}

struct RunResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
  double seconds = 0;
};

// Runs argv with the test's environment minus GASKET_* plus `env`, capturing stdout and stderr.
// `on_output` sees the process id and the stdout so far after every read. Kills it after 30 s.
RunResult run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
              const std::function<void(pid_t, const std::string&)>& on_output = nullptr) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "GASKET_", 7) != 0) env_strings.emplace_back(*e);
  }
  env_strings.insert(env_strings.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  int out[2], err[2];
  BOOST_REQUIRE(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0);
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    execve(cargv[0], cargv.data(), envp.data());
    _exit(126);
  }
  close(out[1]);
  close(err[1]);
  RunResult r;
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* dest[2] = {&r.out, &r.err};
  int open_fds = 2;
  bool killed = false;
  while (open_fds > 0) {
    int n = poll(fds, 2, 200);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > 30 && !killed) {
      kill(pid, SIGKILL);
      killed = true;
    }
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        dest[i]->append(buf, static_cast<size_t>(got));
        if (i == 0 && on_output) on_output(pid, r.out);
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  BOOST_TEST_MESSAGE("ran " << argv.size() << " args in " << r.seconds << " s, status "
                            << r.status << "\n--- stdout:\n" << r.out << "--- stderr:\n" << r.err);
  BOOST_REQUIRE_MESSAGE(!killed, "the command hung and was killed after 30 s");
  return r;
}

RunResult launch(std::vector<std::string> options, const std::vector<std::string>& probe_args,
                 const std::function<void(pid_t, const std::string&)>& on_output = nullptr) {
  std::vector<std::string> argv = {gasketrun()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(probe());
  argv.insert(argv.end(), probe_args.begin(), probe_args.end());
  return run(argv, {}, on_output);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The job id the probe printed ("JOBID <id>", possibly tagged).
std::string job_id_of(const RunResult& r) {
  size_t at = r.out.find("JOBID ");
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "no JOBID line in the output");
  size_t end = r.out.find('\n', at);
  return r.out.substr(at + 6, end - at - 6);
}

// The job's shared-memory files still present.
std::vector<std::string> shm_files_of(const std::string& job_id) {
  std::vector<std::string> found;
  std::string prefix = gasket::bootstrap::shm_file_prefix(job_id);
  DIR* dir = opendir(gasket::bootstrap::kShmDirectory);
  BOOST_REQUIRE(dir != nullptr);
  while (struct dirent* e = readdir(dir)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) found.emplace_back(e->d_name);
  }
  closedir(dir);
  return found;
}

void check_no_shm_left(const RunResult& r) {
  std::string id = job_id_of(r);
  BOOST_TEST(gasket::bootstrap::is_valid_job_id(id));
  BOOST_TEST(shm_files_of(id).empty(), "files of job " << id << " left in /dev/shm");
}

// Exactly one summary line from the launcher about a PE.
void check_one_summary(const RunResult& r) {
  int summaries = 0;
  for (const std::string& line : lines_of(r.err)) {
    if (line.rfind("gasketrun: PE ", 0) == 0) ++summaries;
  }
  BOOST_TEST(summaries == 1);
}

}  // namespace

// ---- unit tests: protocol and environment --------------------------------------------------

BOOST_AUTO_TEST_CASE(protocol_round_trip_is_binary_safe) {
  protocol::Message m;
  m.type = protocol::MessageType::kPut;
  m.key = std::string("k\0\xff", 3);
  m.value = std::string("\0\0v\n\xfe", 5);
  gasket::Result<std::string> frame = protocol::encode(m);
  BOOST_REQUIRE(frame.is_ok());
  protocol::FrameReader reader(protocol::kMaxPayload);
  // Byte by byte: frames cut anywhere must reassemble.
  for (size_t i = 0; i + 1 < frame->size(); ++i) {
    reader.append(frame->data() + i, 1);
    auto next = reader.next();
    BOOST_REQUIRE(next.is_ok());
    BOOST_TEST(!next->has_value());
  }
  reader.append(frame->data() + frame->size() - 1, 1);
  auto next = reader.next();
  BOOST_REQUIRE(next.is_ok());
  BOOST_REQUIRE(next->has_value());
  BOOST_TEST((**next).key == m.key);
  BOOST_TEST((**next).value == m.value);
  BOOST_TEST(reader.buffered() == 0u);
}

BOOST_AUTO_TEST_CASE(protocol_rejects_malformed_frames) {
  protocol::Message get;
  get.type = protocol::MessageType::kGet;
  get.pe = 7;
  get.key = "abc";
  std::string frame = *protocol::encode(get);
  std::string payload = frame.substr(protocol::kFrameHeaderBytes);
  auto decoded = protocol::decode_payload(payload);
  BOOST_REQUIRE(decoded.is_ok());
  BOOST_TEST(decoded->pe == 7);
  BOOST_TEST(!protocol::decode_payload(payload.substr(0, payload.size() - 1)).is_ok());
  BOOST_TEST(!protocol::decode_payload(payload + "x").is_ok());
  BOOST_TEST(!protocol::decode_payload(std::string(1, '\x63')).is_ok());
  BOOST_TEST(!protocol::decode_payload("").is_ok());
  // A length above the limit is refused before the payload arrives.
  protocol::FrameReader hello_reader(protocol::kMaxHelloPayload);
  std::string huge("\x00\x10\x00\x00", 4);
  hello_reader.append(huge.data(), huge.size());
  auto next = hello_reader.next();
  BOOST_TEST(!next.is_ok());
  BOOST_TEST((next.status().code() == gasket::StatusCode::kProtocolError));
  protocol::Message too_big;
  too_big.type = protocol::MessageType::kPut;
  too_big.value.assign(protocol::kMaxPayload, 'x');
  BOOST_TEST(!protocol::encode(too_big).is_ok());
}

BOOST_AUTO_TEST_CASE(job_environment_errors_name_the_variable_and_value) {
  std::map<std::string, std::string> vars = {
      {"GASKET_JOB_STORE", "127.0.0.1:4000"}, {"GASKET_JOB_ID", "j1x2"},
      {"GASKET_JOB_SECRET", std::string(32, 'a')}, {"GASKET_JOB_RANK", "3"},
      {"GASKET_JOB_SIZE", "4"}, {"GASKET_JOB_OVERSUBSCRIBED", "1"}};
  auto lookup = [&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  auto env = gasket::bootstrap::read_job_environment(lookup);
  BOOST_REQUIRE(env.is_ok());
  BOOST_TEST(env->store_host == "127.0.0.1");
  BOOST_TEST(env->store_port == 4000);
  BOOST_TEST(env->rank == 3);
  BOOST_TEST(env->size == 4);
  BOOST_TEST(env->oversubscribed);

  auto expect_error = [&](const std::string& var, const std::string& value,
                          const std::string& mention) {
    auto saved = vars;
    vars[var] = value;
    auto e = gasket::bootstrap::read_job_environment(lookup);
    BOOST_TEST(!e.is_ok(), var << "=" << value << " accepted");
    BOOST_TEST(contains(e.status().message(), mention), e.status().message());
    vars = saved;
  };
  expect_error("GASKET_JOB_RANK", "4", "GASKET_JOB_RANK='4'");
  expect_error("GASKET_JOB_RANK", "-1", "GASKET_JOB_RANK='-1'");
  expect_error("GASKET_JOB_SIZE", "zero", "GASKET_JOB_SIZE='zero'");
  expect_error("GASKET_JOB_STORE", "127.0.0.1:http", "GASKET_JOB_STORE='127.0.0.1:http'");
  expect_error("GASKET_JOB_STORE", "127.0.0.1:70000", "GASKET_JOB_STORE='127.0.0.1:70000'");
  expect_error("GASKET_JOB_STORE", "localhost", "GASKET_JOB_STORE='localhost'");
  expect_error("GASKET_JOB_ID", "../etc", "GASKET_JOB_ID='../etc'");
  expect_error("GASKET_JOB_SECRET", "short", "GASKET_JOB_SECRET");
  expect_error("GASKET_JOB_OVERSUBSCRIBED", "maybe", "GASKET_JOB_OVERSUBSCRIBED='maybe'");
  vars.erase("GASKET_JOB_SIZE");
  auto missing = gasket::bootstrap::read_job_environment(lookup);
  BOOST_TEST(!missing.is_ok());
  BOOST_TEST(contains(missing.status().message(), "GASKET_JOB_SIZE"));
}

BOOST_AUTO_TEST_CASE(job_ids_are_unique_and_file_safe) {
  auto a = gasket::bootstrap::new_job_id('j');
  auto b = gasket::bootstrap::new_job_id('j');
  BOOST_REQUIRE(a.is_ok() && b.is_ok());
  BOOST_TEST(*a != *b);
  BOOST_TEST(gasket::bootstrap::is_valid_job_id(*a));
  BOOST_TEST(!gasket::bootstrap::is_valid_job_id("a-b"));
  BOOST_TEST(!gasket::bootstrap::is_valid_job_id("a/b"));
  auto secret = gasket::bootstrap::random_hex(16);
  BOOST_REQUIRE(secret.is_ok());
  BOOST_TEST(secret->size() == 32u);
}

// ---- jobs under the launcher -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(exchange_at_1_2_4_8_pes) {
  for (int n : {1, 2, 4, 8}) {
    RunResult r = launch({"-n", std::to_string(n)}, {"exchange"});
    BOOST_TEST(r.status == 0, n << " PEs: status " << r.status);
    for (int rank = 0; rank < n; ++rank) {
      BOOST_TEST(contains(r.out, "OK rank " + std::to_string(rank) + " size " + std::to_string(n)),
                 n << " PEs: no OK from PE " << rank);
    }
    BOOST_TEST(!contains(r.err, "PROBE FAILED"));
    BOOST_TEST(count(r.out, "JOBID " + job_id_of(r)) == n);  // one job id for all PEs
    check_no_shm_left(r);
  }
}

BOOST_AUTO_TEST_CASE(abort_names_the_pe_and_message) {
  RunResult r = launch({"-n", "4"}, {"abort", "2"});
  BOOST_TEST(r.status == 3);
  BOOST_TEST(contains(r.err, "gasketrun: PE 2 aborted with code 3: probe abort from PE 2\n"));
  check_one_summary(r);
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(pe_killed_by_sigkill_ends_the_job) {
  RunResult r = launch({"-n", "4"}, {"sigkill", "1"});
  BOOST_TEST(r.status == 128 + 9);
  BOOST_TEST(contains(r.err, "gasketrun: PE 1 (pid "));
  BOOST_TEST(contains(r.err, "was killed by signal 9 (Killed); ending the job"));
  check_one_summary(r);
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(nonzero_exit_status_is_propagated) {
  RunResult r = launch({"-n", "3"}, {"exit", "1", "7"});
  BOOST_TEST(r.status == 7);
  BOOST_TEST(contains(r.err, "gasketrun: PE 1 (pid "));
  BOOST_TEST(contains(r.err, "exited with status 7; ending the job"));
  check_one_summary(r);
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(exit_without_finalize_is_a_failure) {
  RunResult r = launch({"-n", "2"}, {"no-finalize"});
  BOOST_TEST(r.status != 0);
  BOOST_TEST(contains(r.err, "exited with status 0 without calling finalize"));
  check_one_summary(r);
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(timeout_ends_a_hung_job) {
  RunResult r = launch({"--timeout", "1", "-n", "2"}, {"hang"});
  BOOST_TEST(r.status == 124);
  BOOST_TEST(contains(r.err, "gasketrun: job timed out after 1 s; killing 2 PEs\n"));
  BOOST_TEST(contains(r.out, "READY 0"));
  BOOST_TEST(contains(r.out, "READY 1"));
  BOOST_TEST(r.seconds < 5.0);
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(timeout_from_environment) {
  std::vector<std::string> argv = {gasketrun(), "-n", "1", probe(), "hang"};
  RunResult r = run(argv, {"GASKET_TIMEOUT=0.5"});
  BOOST_TEST(r.status == 124);
  BOOST_TEST(contains(r.err, "job timed out after 0.5 s; killing 1 PE\n"));
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(sigterm_to_the_launcher_is_forwarded_and_cleans_up) {
  RunResult r = launch({"-n", "3"}, {"hang"}, [](pid_t pid, const std::string& out) {
    static bool sent = false;
    if (!sent && count(out, "READY ") == 3) {
      kill(pid, SIGTERM);
      sent = true;
    }
  });
  BOOST_TEST(r.status == 128 + SIGTERM);
  BOOST_TEST(contains(r.err, "gasketrun: received signal 15 (Terminated); forwarding it to 3 PEs"));
  BOOST_TEST(r.seconds < 10.0);
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(tag_output_tags_whole_lines) {
  const int kLines = 200;
  RunResult r = launch({"--tag-output", "-n", "2"}, {"lines", std::to_string(kLines)});
  BOOST_TEST(r.status == 0);
  std::map<int, int> out_lines, err_lines;
  std::set<int> tails;
  for (const std::string& line : lines_of(r.out)) {
    int pe = -1, pe2 = -1, i = -1;
    BOOST_REQUIRE_MESSAGE(sscanf(line.c_str(), "[pe %d] ", &pe) == 1, "untagged: " << line);
    std::string body = line.substr(line.find("] ") + 2);
    char payload[400];
    if (sscanf(body.c_str(), "line %d %d %399s end", &pe2, &i, payload) == 3) {
      BOOST_TEST(pe2 == pe);
      BOOST_TEST(std::string(payload) == std::string(300, static_cast<char>('A' + pe)));
      BOOST_TEST(body.size() == body.find(payload) + 300 + 4);  // " end" closes it: not merged
      ++out_lines[pe];
    } else if (sscanf(body.c_str(), "tail %d", &pe2) == 1) {
      BOOST_TEST(pe2 == pe);
      BOOST_TEST(body == "tail " + std::to_string(pe));
      tails.insert(pe);
    } else {
      BOOST_TEST((body.rfind("JOBID ", 0) == 0), "unexpected line: " << line);
    }
  }
  for (const std::string& line : lines_of(r.err)) {
    int pe = -1, pe2 = -1, i = -1;
    if (line.rfind("gasketrun:", 0) == 0) continue;  // notices
    BOOST_REQUIRE_MESSAGE(sscanf(line.c_str(), "[pe %d] errline %d %d end", &pe, &pe2, &i) == 3,
                          "bad stderr line: " << line);
    BOOST_TEST(pe == pe2);
    ++err_lines[pe];
  }
  for (int pe = 0; pe < 2; ++pe) {
    BOOST_TEST(out_lines[pe] == kLines);
    BOOST_TEST(err_lines[pe] == kLines);
    BOOST_TEST(tails.count(pe) == 1u);
  }
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(untagged_lines_of_8_pes_are_never_merged) {
  RunResult r = launch({"-n", "8", "--quiet"}, {"lines", "100"});
  BOOST_TEST(r.status == 0);
  int good = 0;
  for (const std::string& line : lines_of(r.out)) {
    int pe = -1, i = -1;
    if (sscanf(line.c_str(), "line %d %d ", &pe, &i) != 2) continue;
    std::string expect = "line " + std::to_string(pe) + " " + std::to_string(i) + " " +
                         std::string(300, static_cast<char>('A' + pe)) + " end";
    BOOST_TEST(line == expect);
    ++good;
  }
  BOOST_TEST(good == 800);
  BOOST_TEST(!contains(r.err, "oversubscribed"));  // --quiet
}

BOOST_AUTO_TEST_CASE(wrong_secret_is_rejected) {
  RunResult r = launch({"-n", "2"}, {"bad-secret"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(contains(r.out, "REJECTED"));
  BOOST_TEST(contains(r.err, "gasketrun: store: dropped connection from 127.0.0.1:"));
  BOOST_TEST(contains(r.err, "its first message is not the job secret"));
  BOOST_TEST(contains(r.out, "OK rank 0 size 2"));
  BOOST_TEST(contains(r.out, "OK rank 1 size 2"));
}

BOOST_AUTO_TEST_CASE(store_address_option) {
  RunResult r = launch({"-n", "2", "--store-address", "127.0.0.2"}, {"exchange"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(count(r.out, "OK rank ") == 2);
  RunResult bad = launch({"-n", "2", "--store-address", "127.0.0.1:99999"}, {"exchange"});
  BOOST_TEST(bad.status == 1);
  BOOST_TEST(contains(bad.err, "--store-address='127.0.0.1:99999'"));
  BOOST_TEST(!contains(bad.out, "JOBID"));  // no PE was started
}

BOOST_AUTO_TEST_CASE(node_names_and_oversubscription) {
  RunResult r = launch({"-n", "4", "--pes-per-node", "2"}, {"env"});
  BOOST_TEST(r.status == 0);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  for (int pe = 0; pe < 4; ++pe) {
    BOOST_TEST(contains(r.out, "NODE " + std::to_string(pe) + " " + host + ":" +
                                   std::to_string(pe / 2) + "\n"));
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  RunResult over = launch({"-n", std::to_string(cpus + 1)}, {"env"});
  BOOST_TEST(over.status == 0);
  BOOST_TEST(contains(over.err, std::to_string(cpus + 1) + " PEs on "));
  BOOST_TEST(contains(over.err, "oversubscribed, PEs will yield while waiting"));
  BOOST_TEST(count(over.out, "OVERSUB ") == cpus + 1);
  BOOST_TEST(count(over.out, "OVERSUB " ) == count(over.out, " 1\nCPUS"));
  BOOST_TEST(contains(over.out, "NODE 0 -\n"));  // left alone without --pes-per-node
}

// The CPU list each of `pes` PEs printed ("CPUS <pe> <list>", probe env), by PE.
std::vector<std::string> cpus_by_pe(const RunResult& r, int pes) {
  std::vector<std::string> cpus(static_cast<size_t>(pes));
  for (const std::string& line : lines_of(r.out)) {
    int pe = -1;
    char list[256];
    if (sscanf(line.c_str(), "CPUS %d %255s", &pe, list) == 2 && pe >= 0 && pe < pes) cpus[static_cast<size_t>(pe)] = list;
  }
  return cpus;
}

BOOST_AUTO_TEST_CASE(pes_are_bound_to_distinct_cores) {
  RunResult r = launch({"-n", "2"}, {"env"});
  BOOST_TEST(r.status == 0);
  if (contains(r.err, "oversubscribed")) return;  // fewer than 2 cores here: both share the one core
  std::vector<std::string> cpus = cpus_by_pe(r, 2);
  BOOST_TEST(!cpus[0].empty());
  BOOST_TEST(!cpus[1].empty());
  BOOST_TEST(cpus[0] != cpus[1]);
  RunResult unbound = launch({"-n", "2", "--bind-to", "none"}, {"env"});
  BOOST_TEST(count(unbound.out, "CPUS 0 " + std::string(cpus[0]) + "\n") == 0);
}

// PEs that outnumber the cores are bound round-robin when every core gets as many (PE i shares
// PE i mod cores' core), and left unbound when they do not divide evenly.
BOOST_AUTO_TEST_CASE(oversubscribed_pes_are_bound_round_robin_when_even) {
  const int uneven = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) + 1;
  RunResult loose = launch({"-n", std::to_string(uneven)}, {"env"});
  BOOST_TEST(loose.status == 0);
  const std::string notice = "gasketrun: " + std::to_string(uneven) + " PEs on ";
  const size_t at = loose.err.find(notice);
  BOOST_TEST_REQUIRE(at != std::string::npos);
  int cores = 0;
  BOOST_TEST_REQUIRE(sscanf(loose.err.c_str() + at + notice.size(), "%d cores", &cores) == 1);
  const int even = 2 * cores;
  RunResult r = launch({"-n", std::to_string(even)}, {"env"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(contains(r.err, "oversubscribed"));
  std::vector<std::string> bound = cpus_by_pe(r, even);
  for (int pe = 0; pe < even; ++pe) {
    BOOST_TEST_INFO("PE " << pe);
    BOOST_TEST(!bound[static_cast<size_t>(pe)].empty());
    BOOST_TEST(bound[static_cast<size_t>(pe)] == bound[static_cast<size_t>(pe % cores)]);
  }
  if (cores >= 2) BOOST_TEST(bound[0] != bound[1]);
  if (uneven % cores != 0) {  // the PEs do not divide evenly: none is bound, all see every CPU
    std::vector<std::string> all = cpus_by_pe(loose, uneven);
    for (int pe = 1; pe < uneven; ++pe) BOOST_TEST(all[static_cast<size_t>(pe)] == all[0]);
    BOOST_TEST(all[0] != bound[0]);
  }
}

// Each PE leads a session of its own while the PEs fit the cores, or when told to (autogroup
// scheduling then gives a PE a session's share of the CPU beside a loaded shell); PEs
// that outnumber the cores, or told to, stay in the launcher's session.
BOOST_AUTO_TEST_CASE(pes_lead_sessions_of_their_own) {
  auto sessions = [](const RunResult& r) {
    std::map<int, std::pair<int, int>> pid_and_sid;  // by rank
    for (const std::string& line : lines_of(r.out)) {
      int pe = -1, pid = 0, sid = 0;
      if (sscanf(line.c_str(), "SESSION %d %d %d", &pe, &pid, &sid) == 3) pid_and_sid[pe] = {pid, sid};
    }
    return pid_and_sid;
  };
  auto expect_own = [&](const RunResult& r, size_t pes) {
    BOOST_TEST(r.status == 0);
    auto by_rank = sessions(r);
    BOOST_TEST(by_rank.size() == pes);
    for (const auto& [pe, ids] : by_rank) BOOST_TEST(ids.first == ids.second, "PE " << pe << " leads no session");
  };
  auto expect_shared = [&](const RunResult& r, size_t pes) {
    BOOST_TEST(r.status == 0);
    auto by_rank = sessions(r);
    BOOST_TEST(by_rank.size() == pes);
    for (const auto& [pe, ids] : by_rank) {
      BOOST_TEST(ids.second == static_cast<int>(getsid(0)), "PE " << pe << " left the launcher's session");
    }
  };
  expect_own(launch({"-n", "1"}, {"env"}), 1);  // auto, one PE fits any machine
  // auto with more PEs than hardware threads (so more than cores): the launcher's session
  const int crowd = 2 * static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) + 1;
  expect_shared(launch({"-n", std::to_string(crowd)}, {"env"}), static_cast<size_t>(crowd));
  expect_own(launch({"-n", "3", "--session", "pe"}, {"env"}), 3);
  expect_shared(launch({"-n", "2", "--session", "launcher"}, {"env"}), 2);
}

BOOST_AUTO_TEST_CASE(singleton_without_launcher) {
  RunResult r = run({probe(), "exchange"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(contains(r.out, "OK rank 0 size 1"));
  BOOST_TEST(job_id_of(r)[0] == 's');
  RunResult a = run({probe(), "abort", "0"});
  BOOST_TEST(a.status == 3);
  BOOST_TEST(contains(a.err, "PE 0 aborted with code 3: probe abort from PE 0"));
}

BOOST_AUTO_TEST_CASE(bad_bootstrap_environment_is_reported) {
  std::vector<std::string> env = {"GASKET_JOB_STORE=127.0.0.1:1", "GASKET_JOB_ID=jtest",
                                  "GASKET_JOB_SECRET=" + std::string(32, 'f'),
                                  "GASKET_JOB_RANK=5", "GASKET_JOB_SIZE=4"};
  RunResult r = run({probe(), "exchange"}, env);
  BOOST_TEST(r.status == 1);
  BOOST_TEST(contains(r.err, "BOOTSTRAP ERROR"));
  BOOST_TEST(contains(r.err, "GASKET_JOB_RANK='5'"));
  env[0] = "GASKET_JOB_STORE=127.0.0.1:notaport";
  env[3] = "GASKET_JOB_RANK=0";
  r = run({probe(), "exchange"}, env);
  BOOST_TEST(r.status == 1);
  BOOST_TEST(contains(r.err, "GASKET_JOB_STORE='127.0.0.1:notaport'"));
}

BOOST_AUTO_TEST_CASE(command_line_errors_exit_2) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"-n", "0", probe()}, "bad number of PEs '0'"},
      {{"-n", "2"}, "missing the program"},
      {{probe()}, "missing the number of PEs"},
      {{"--frobnicate", "-n", "1", probe()}, "unknown option '--frobnicate'"},
      {{"-n", "1", "--bind-to", "socket", probe()}, "bad --bind-to 'socket'"},
      {{"-n", "1", "--session", "job", probe()}, "bad --session 'job'"},
      {{"-n", "1", "--timeout", "soon", probe()}, "bad --timeout 'soon'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {gasketrun()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    RunResult r = run(argv);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "gasketrun: " + c.message), r.err);
  }
  RunResult help = run({gasketrun(), "--help"});
  BOOST_TEST(help.status == 0);
  BOOST_TEST(contains(help.out, "Usage: gasketrun -n N"));
  RunResult missing = run({gasketrun(), "-n", "2", "/nonexistent/program"});
  BOOST_TEST(missing.status == 127);
  BOOST_TEST(contains(missing.err, "gasketrun: PE 0: cannot execute '/nonexistent/program'"));
}

// The conventions of both launcher families (Hydra and ORTE/PRRTE).

// The value a PE printed on its "<tag> <pe> ..." line (the rest of the line), "" when missing.
std::string line_of(const RunResult& r, const std::string& tag, int pe) {
  std::string prefix = tag + " " + std::to_string(pe) + " ";
  for (const std::string& line : lines_of(r.out)) {
    if (line.compare(0, prefix.size(), prefix) == 0) return line.substr(prefix.size());
  }
  return "";
}

BOOST_AUTO_TEST_CASE(mpmd_parts_get_their_appnum_and_universe_size) {
  // -n 1 probe env P0 : -np 3 probe env P1: ranks 0 | 1 2 3, each part its own arguments.
  std::vector<std::string> argv = {gasketrun(), "-n", "1", probe(), "env", "P0", ":",
                                   "-np", "3", probe(), "env", "P1"};
  RunResult r = run(argv, {"P0=zero", "P1=one"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(line_of(r, "APP", 0) == probe() + " 0 1 4");
  BOOST_TEST(line_of(r, "VAR", 0) == "P0=zero");
  for (int pe = 1; pe < 4; ++pe) {
    BOOST_TEST(line_of(r, "APP", pe) == probe() + " 1 3 4", "PE " << pe);
    BOOST_TEST(line_of(r, "VAR", pe) == "P1=one", "PE " << pe);
  }
  check_no_shm_left(r);
}

BOOST_AUTO_TEST_CASE(genv_env_x_and_genvlist_set_the_pes_environment) {
  // -genv (Hydra's two words, or VAR=VAL) and -x for all parts, -env for its own part only; a bare
  // VAR after -x takes the launcher's value and every given value replaces the launcher's own.
  std::vector<std::string> argv = {gasketrun(), "-genv", "G1", "g", "-x", "FROM_LAUNCHER",
                                   "-genvlist", "LIST_A,LIST_B", "-n", "1", "-env", "LOCAL=first",
                                   probe(), "env", "G1", "FROM_LAUNCHER", "LIST_A", "LIST_B", "LOCAL",
                                   ":", "-n", "1", "-env", "H=1=2", probe(), "env", "G1", "LOCAL",
                                   "OVERRIDDEN", "H"};
  RunResult r = run(argv, {"FROM_LAUNCHER=fl", "LIST_A=a", "LIST_B=b", "LOCAL=launcher", "G1=old"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(contains(r.out, "VAR 0 G1=g\nVAR 0 FROM_LAUNCHER=fl\nVAR 0 LIST_A=a\nVAR 0 LIST_B=b\n"
                             "VAR 0 LOCAL=first\n"));
  BOOST_TEST(contains(r.out, "VAR 1 G1=g\nVAR 1 LOCAL=launcher\nVAR 1 OVERRIDDEN=-\nVAR 1 H=1=2\n"));
  RunResult unset = run({gasketrun(), "-x", "NOT_SET_ANYWHERE", "-n", "1", probe(), "env"});
  BOOST_TEST(unset.status == 2);
  BOOST_TEST(contains(unset.err, "gasketrun: -x NOT_SET_ANYWHERE: NOT_SET_ANYWHERE is not set in "
                                 "the launcher's environment"));
}

BOOST_AUTO_TEST_CASE(wdir_sets_each_parts_working_directory) {
  RunResult r = run({gasketrun(), "-wdir", "/tmp", "-n", "1", probe(), "env", ":", "--wdir=/",
                     "-n", "1", probe(), "env"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(line_of(r, "WDIR", 0) == "/tmp");
  BOOST_TEST(line_of(r, "WDIR", 1) == "/");
  RunResult bad = run({gasketrun(), "-wdir", "/nonexistent/dir", "-n", "1", probe(), "env"});
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(contains(bad.err, "gasketrun: bad -wdir '/nonexistent/dir': No such file or directory"));
}

BOOST_AUTO_TEST_CASE(hosts_with_slots_give_the_count_and_universe) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  // Slots: -n defaults to their sum, which is also MPI_UNIVERSE_SIZE when larger than -n.
  RunResult r = run({gasketrun(), "-host", "localhost:2," + std::string(host) + ":1", probe(), "env"});
  BOOST_TEST(r.status == 0);
  BOOST_TEST(count(r.out, "APP ") == 3);
  BOOST_TEST(line_of(r, "APP", 2) == probe() + " 0 3 3");
  RunResult small = run({gasketrun(), "--host", "127.0.0.1:4", "-n", "2", probe(), "env"});
  BOOST_TEST(small.status == 0);
  BOOST_TEST(line_of(small, "APP", 1) == probe() + " 0 2 4");
  // A hostfile in both families' spellings, comments and blank lines included.
  std::string path = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                     "/hostfile";
  FILE* f = fopen(path.c_str(), "w");
  BOOST_REQUIRE(f != nullptr);
  fprintf(f, "# this machine twice\nlocalhost slots=2 max_slots=4\n\n%s:1\n", host);
  fclose(f);
  RunResult hf = run({gasketrun(), "-f", path, probe(), "env"});
  BOOST_TEST(hf.status == 0);
  BOOST_TEST(count(hf.out, "APP ") == 3);
  RunResult over = run({gasketrun(), "--hostfile", path, "-n", "4", probe(), "env"});
  BOOST_TEST(over.status == 2);
  BOOST_TEST(contains(over.err, "gasketrun: 4 PEs but the host list has 3 slots: add --oversubscribe"));
  RunResult allowed = run({gasketrun(), "--hostfile", path, "--oversubscribe", "-n", "4", probe(), "env"});
  BOOST_TEST(allowed.status == 0);
  BOOST_TEST(line_of(allowed, "APP", 3) == probe() + " 0 4 4");
  // Another machine: a plain refusal that points at Slurm/PMIx.
  RunResult remote = run({gasketrun(), "-hosts", "localhost,node17", "-n", "2", probe(), "env"});
  BOOST_TEST(remote.status == 2);
  BOOST_TEST(contains(remote.err, "gasketrun: -hosts names host 'node17', which is not this machine: "
                                  "gasketrun runs the PEs of a job on this machine only"));
  BOOST_TEST(contains(remote.err, "docs/CLUSTER.md"));
  BOOST_TEST(!contains(remote.out, "JOBID"));
}

BOOST_AUTO_TEST_CASE(ppn_npernode_and_map_by_ppr_give_the_pes_of_this_node) {
  for (const std::vector<std::string>& opt : std::vector<std::vector<std::string>>{
           {"-ppn", "2"}, {"-npernode", "2"}, {"--npernode", "2"}, {"--map-by", "ppr:2:node"}}) {
    std::vector<std::string> argv = {gasketrun()};
    argv.insert(argv.end(), opt.begin(), opt.end());
    argv.insert(argv.end(), {probe(), "env"});
    RunResult r = run(argv);
    BOOST_TEST(r.status == 0, opt[0]);
    BOOST_TEST(count(r.out, "APP ") == 2, opt[0]);
    argv.insert(argv.begin() + 1, {"-n", "4"});
    RunResult two_nodes = run(argv);
    BOOST_TEST(two_nodes.status == 2, opt[0]);
    BOOST_TEST(contains(two_nodes.err, "4 PEs at 2 per node need more than one node"), opt[0]);
  }
  RunResult bad = run({gasketrun(), "--map-by", "socket", "-n", "1", probe(), "env"});
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(contains(bad.err, "bad --map-by 'socket': only ppr:K:node is supported"));
}

BOOST_AUTO_TEST_CASE(single_dash_bind_to_label_and_timeout) {
  RunResult unbound = run({gasketrun(), "-bind-to", "none", "-n", "1", probe(), "env"});
  BOOST_TEST(unbound.status == 0);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  std::string all;
  for (long c = 0; c < cpus; ++c) all += (c ? "," : "") + std::to_string(c);
  BOOST_TEST(line_of(unbound, "CPUS", 0) == all);  // unbound: every online CPU (no cgroup limit here)
  RunResult bound = run({gasketrun(), "-bind-to", "core", "-n", "1", probe(), "env"});
  BOOST_TEST(bound.status == 0);
  if (cpus > 1) BOOST_TEST(line_of(bound, "CPUS", 0) != all);  // one core, not the machine
  for (const char* flag : {"-l", "--label", "--tag-output"}) {
    RunResult r = run({gasketrun(), flag, "-n", "2", probe(), "env"});
    BOOST_TEST(r.status == 0, flag);
    BOOST_TEST(contains(r.out, "[pe 1] APP 1 "), flag);
  }
  RunResult t = launch({"-timeout", "1", "-n", "2"}, {"hang"});
  BOOST_TEST(t.status == 124);
  BOOST_TEST(contains(t.err, "job timed out after 1 s"));
  check_no_shm_left(t);
}

BOOST_AUTO_TEST_CASE(help_lists_every_family_name) {
  RunResult help = run({gasketrun(), "--help"});
  BOOST_TEST(help.status == 0);
  for (const char* name : {"-np", "-hosts", "--host", "-hostfile", "-f", "-ppn", "-npernode",
                           "--map-by", "-genv", "-env", "-x", "-genvlist", "-wdir", "-bind-to",
                           "--bind-to", "--oversubscribe", "--tag-output", "-l", "--label",
                           "--timeout", "MPI_APPNUM"}) {
    BOOST_TEST(contains(help.out, name), name);
  }
  RunResult part = run({gasketrun(), "-n", "1", probe(), "env", ":"});
  BOOST_TEST(part.status == 2);
  BOOST_TEST(contains(part.err, "missing the program to run"));
}

const std::string& mpi_launch_env() {
  static const std::string path = runfile("tests/launcher/mpi_launch_env");
  return path;
}

BOOST_AUTO_TEST_CASE(mpi_sees_appnum_universe_and_info_env_of_each_mpmd_part) {
  // Part 0: 1 PE in /tmp; part 1: 2 PEs in the launcher's directory with more arguments. The
  // host list grants 6 slots: MPI_UNIVERSE_SIZE is 6. The program checks every value itself.
  char cwd[4096];
  BOOST_REQUIRE(getcwd(cwd, sizeof cwd) != nullptr);
  RunResult r = run({gasketrun(), "-host", "localhost:6", "-n", "1", "-wdir", "/tmp", mpi_launch_env(),
                     "0", "1", "6", "/tmp", ":", "-np", "2", mpi_launch_env(), "1", "2", "6", cwd,
                     "x", "y z"});
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(contains(r.out, "LAUNCH_ENV OK 0 0\n"));
  BOOST_TEST(contains(r.out, "LAUNCH_ENV OK 1 1\n"));
  BOOST_TEST(contains(r.out, "LAUNCH_ENV OK 2 1\n"));
  // The checks can fail: a wrong expectation ends the job naming the key.
  RunResult wrong = run({gasketrun(), "-n", "2", mpi_launch_env(), "0", "3", "world", "cwd"});
  BOOST_TEST(wrong.status == 1);
  BOOST_TEST(contains(wrong.err, "MPI_INFO_ENV maxprocs: expected '3', got '2'"));
  // A singleton is part 0 and its own universe.
  RunResult single = run({mpi_launch_env(), "0", "1", "1", "cwd"});
  BOOST_TEST(single.status == 0, single.err);
  BOOST_TEST(contains(single.out, "LAUNCH_ENV OK 0 0\n"));
  // A bad value from the launcher's environment is an MPI_Init error naming it.
  RunResult bad = run({mpi_launch_env(), "0", "1", "1", "cwd"}, {"GASKET_JOB_APPNUM=two"});
  BOOST_TEST(bad.status != 0);
  BOOST_TEST(contains(bad.err, "MPI_Init: PE 0: bad GASKET_JOB_APPNUM='two'"), bad.err);
}

BOOST_AUTO_TEST_CASE(mpiexec_and_oshrun_speak_the_same_options) {
  RunResult mpmd = run({runfile("tools/mpicc/mpiexec"), "-np", "1", "-genv", "WHO=mpiexec", probe(), "env",
                        "WHO", ":", "-n", "1", probe(), "env", "WHO"});
  BOOST_TEST(mpmd.status == 0, mpmd.err);
  BOOST_TEST(line_of(mpmd, "APP", 1) == probe() + " 1 1 2");
  BOOST_TEST(line_of(mpmd, "VAR", 1) == "WHO=mpiexec");
  RunResult osh = run({runfile("tools/oshcc/oshrun"), "-npernode", "2", "-l", probe(), "env"});
  BOOST_TEST(osh.status == 0, osh.err);
  BOOST_TEST(contains(osh.out, "[pe 1] APP 1 "));
  RunResult remote = run({runfile("tools/oshcc/oshrun"), "-host", "10.1.2.3", "-n", "1", probe(), "env"});
  BOOST_TEST(remote.status == 2);
  BOOST_TEST(contains(remote.err, "oshrun: -host names host '10.1.2.3', which is not this machine"));
}
