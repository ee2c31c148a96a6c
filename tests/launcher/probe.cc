// A PE program for the launcher tests. Every mode first creates the bootstrap and (under a
// launcher) a file /dev/shm/gasket-<job_id>-probe-<rank>, which the launcher must remove at the
// end of the job however it ends. Modes (argv[1]):
//   exchange            every PE puts a binary value, fences, gets every PE's value and checks it
//   fenced-exchange N   the same with N more bytes per value, then a get of a key nobody put must
//                       fail (not hang): what every bootstrap, PMI-1 included, provides
//   abort R             PE R aborts with code 3, the others wait in a fence
//   exit R S            PE R exits with status S, the others wait in a fence
//   sigkill R           PE R kills itself with SIGKILL, the others wait in a fence
//   hang                fence, print READY, then sleep forever
//   lines N             print N long lines to stdout and stderr, then a final partial line
//   no-finalize         exit 0 without calling finalize
//   bad-secret          connect to the store with a wrong secret (must be dropped), then exchange
//   env [VAR...]        print node name, oversubscription, CPU affinity, the MPMD part
//                       (APPNUM, its size, the universe size), the working directory, the
//                       process and session ids and the value of each VAR ("-" when unset),
//                       then finalize
#include <netdb.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/bootstrap/bootstrap.h"
#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/job_identity.h"
#include "core/bootstrap/store_protocol.h"

namespace {

using gasket::Status;
using gasket::bootstrap::Bootstrap;

[[noreturn]] void die(const std::string& what) {
  fprintf(stderr, "PROBE FAILED: %s\n", what.c_str());
  exit(1);
}

void check(const Status& s, const char* call) {
  if (!s.is_ok()) die(std::string(call) + ": " + s.message());
}

int arg_int(int argc, char** argv, int i) {
  if (i >= argc) die("missing argument " + std::to_string(i));
  return std::atoi(argv[i]);
}

// The value PE `rank` publishes: binary (NUL and 0xff bytes) and of a size that varies by PE.
std::string value_of(int rank, size_t extra) {
  std::string v = "value-of-" + std::to_string(rank);
  v.push_back('\0');
  v.push_back('\xff');
  v.append(static_cast<size_t>(100 * rank) + extra, static_cast<char>('a' + rank % 26));
  return v;
}

// Every PE puts its value under a binary key, fences, and checks every PE's value.
void fenced_round(Bootstrap& b, size_t extra) {
  std::string key("addr\0x", 6);
  check(b.put(key, value_of(b.rank(), extra)), "put");
  check(b.fence(), "fence");
  for (int pe = 0; pe < b.size(); ++pe) {
    gasket::Result<std::string> v = b.get((b.rank() + pe) % b.size(), key);
    if (!v.is_ok()) die("get: " + v.status().message());
    if (*v != value_of((b.rank() + pe) % b.size(), extra)) {
      die("get(pe " + std::to_string((b.rank() + pe) % b.size()) + "): wrong value");
    }
  }
}

void fenced_exchange(Bootstrap& b, size_t extra) {
  fenced_round(b, extra);
  gasket::Result<std::string> never = b.get((b.rank() + 1) % b.size(), "never-put");
  if (never.is_ok()) die("get of a key nobody put returned '" + *never + "'");
  fprintf(stderr, "expected failure: %s\n", never.status().message().c_str());
  check(b.fence(), "fence 2");
  printf("OK rank %d size %d\n", b.rank(), b.size());
}

void exchange(Bootstrap& b) {
  fenced_round(b, 0);
  // A second round: a key put after the first fence, read without a fence (get waits for it).
  check(b.put("late", std::to_string(b.rank() * 7)), "put late");
  gasket::Result<std::string> late = b.get((b.rank() + 1) % b.size(), "late");
  if (!late.is_ok()) die("get late: " + late.status().message());
  if (*late != std::to_string(((b.rank() + 1) % b.size()) * 7)) die("get late: wrong value");
  check(b.fence(), "fence 2");
  printf("OK rank %d size %d\n", b.rank(), b.size());
}

void wait_forever(Bootstrap& b) {
  Status s = b.fence();  // never completes: one PE does not come
  fprintf(stderr, "unexpected: fence returned: %s\n", s.message().c_str());
  for (;;) pause();
}

// Connects to the store with a wrong secret: the launcher must close the connection without
// answering HELLO_OK.
void try_bad_secret() {
  std::string host;
  int port = 0;
  check(gasket::bootstrap::split_host_port(getenv("GASKET_JOB_STORE"), "GASKET_JOB_STORE", &host,
                                           &port),
        "split_host_port");
  struct addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* a = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &a) != 0) die("getaddrinfo");
  int fd = socket(a->ai_family, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, a->ai_addr, a->ai_addrlen) != 0) die("connect");
  freeaddrinfo(a);
  gasket::bootstrap::protocol::Message hello;
  hello.type = gasket::bootstrap::protocol::MessageType::kHello;
  hello.pe = 0;
  hello.value = std::string(32, '0');
  gasket::Result<std::string> frame = gasket::bootstrap::protocol::encode(hello);
  if (!frame.is_ok() || send(fd, frame->data(), frame->size(), MSG_NOSIGNAL) < 0) die("send");
  char buf[64];
  ssize_t n = recv(fd, buf, sizeof buf, 0);
  close(fd);
  if (n != 0) die("bad secret: expected the store to close the connection, got " +
                  std::to_string(n) + " bytes");
  printf("REJECTED\n");
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOFBF, 4096);  // forwarding must reassemble lines cut by stdio
  if (argc < 2) die("usage: probe MODE [args]");
  std::string mode = argv[1];
  gasket::Result<std::unique_ptr<Bootstrap>> created = gasket::bootstrap::create_from_environment();
  if (!created.is_ok()) {
    fprintf(stderr, "BOOTSTRAP ERROR: %s\n", created.status().message().c_str());
    return 1;
  }
  Bootstrap& b = **created;
  printf("JOBID %s\n", b.job_id().c_str());
  if (getenv("GASKET_JOB_STORE") != nullptr) {
    std::string path = std::string(gasket::bootstrap::kShmDirectory) + "/" +
                       gasket::bootstrap::shm_file_prefix(b.job_id()) + "probe-" +
                       std::to_string(b.rank());
    FILE* f = fopen(path.c_str(), "w");
    if (f == nullptr) die("cannot create " + path + ": " + strerror(errno));
    fclose(f);
  }
  fflush(stdout);

  if (mode == "exchange") {
    exchange(b);
  } else if (mode == "fenced-exchange") {
    fenced_exchange(b, static_cast<size_t>(arg_int(argc, argv, 2)));
  } else if (mode == "abort") {
    if (b.rank() == arg_int(argc, argv, 2)) {
      fflush(stdout);
      b.abort(3, "probe abort from PE " + std::to_string(b.rank()));
    }
    wait_forever(b);
  } else if (mode == "exit") {
    if (b.rank() == arg_int(argc, argv, 2)) {
      fflush(stdout);
      _exit(arg_int(argc, argv, 3));
    }
    wait_forever(b);
  } else if (mode == "sigkill") {
    if (b.rank() == arg_int(argc, argv, 2)) {
      fflush(stdout);
      raise(SIGKILL);
    }
    wait_forever(b);
  } else if (mode == "hang") {
    check(b.fence(), "fence");
    printf("READY %d\n", b.rank());
    fflush(stdout);
    for (;;) pause();
  } else if (mode == "lines") {
    int n = arg_int(argc, argv, 2);
    std::string payload(300, static_cast<char>('A' + b.rank() % 26));
    for (int i = 0; i < n; ++i) {
      printf("line %d %d %s end\n", b.rank(), i, payload.c_str());
      fprintf(stderr, "errline %d %d end\n", b.rank(), i);
    }
    printf("tail %d", b.rank());  // no newline: flushed by the launcher at EOF
  } else if (mode == "no-finalize") {
    fflush(stdout);
    _exit(0);
  } else if (mode == "bad-secret") {
    if (b.rank() == 0) try_bad_secret();
    exchange(b);
  } else if (mode == "env") {
    const char* node = getenv("GASKET_NODE_NAME");
    cpu_set_t set;
    CPU_ZERO(&set);
    std::string cpus;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &set)) cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
      }
    }
    printf("NODE %d %s\nOVERSUB %d %d\nCPUS %d %s\n", b.rank(), node != nullptr ? node : "-",
           b.rank(), b.oversubscribed() ? 1 : 0, b.rank(), cpus.c_str());
    auto value = [](const char* name) {
      const char* v = getenv(name);
      return v != nullptr ? v : "-";
    };
    char cwd[4096] = "-";
    if (getcwd(cwd, sizeof cwd) == nullptr) die("getcwd");
    printf("APP %d %s %s %s %s\nWDIR %d %s\n", b.rank(), argv[0],
           value(gasket::bootstrap::kEnvJobAppnum), value(gasket::bootstrap::kEnvJobAppSize),
           value(gasket::bootstrap::kEnvJobUniverseSize), b.rank(), cwd);
    printf("SESSION %d %d %d\n", b.rank(), static_cast<int>(getpid()), static_cast<int>(getsid(0)));
    for (int i = 2; i < argc; ++i) printf("VAR %d %s=%s\n", b.rank(), argv[i], value(argv[i]));
  } else {
    die("unknown mode " + mode);
  }
  fflush(stdout);
  check(b.finalize(), "finalize");
  return 0;
}
