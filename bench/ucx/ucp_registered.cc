// Raw UCP on memory registered the way gasket's segments are (a shared-memory file mapped by the
// program, then ucp_mem_map without UCP_MEM_MAP_ALLOCATE), measured like ucx_bench measures
// gasket. ucx_perftest lets UCX allocate its buffers, which UCX's shared-memory transports can map
// into the peer (ucp_rkey_ptr: loads and stores); memory UCX did not allocate is reached through
// cma or UCP's emulation over active messages instead. This program gives that floor, so that
// bench/ucx/compare.sh can separate what UCX costs on such memory from what gasket adds on top.
//   UCX_TLS=self,sm ucp_registered [--max-iters N]   (forks its peer; prints "figure bytes value")
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/ucx/measure.h"

namespace {

using namespace ucx_bench;

[[noreturn]] void fail(const char* what, ucs_status_t st) {
  std::fprintf(stderr, "ucp_registered: %s failed: %s\n", what, ucs_status_string(st));
  std::exit(1);
}

void check(ucs_status_t st, const char* what) {
  if (st != UCS_OK) fail(what, st);
}

// One side of the pair: its worker, endpoint to the peer, registered inbox and the peer's rkey.
struct Side {
  int sock;  // socketpair end: address exchange and phase barriers
  ucp_context_h context;
  ucp_worker_h worker;
  ucp_ep_h ep;
  char* inbox;  // kMaxBytes + one 8-byte counter word, in a shared-memory file
  ucp_mem_h memh;
  uint64_t peer_base;
  ucp_rkey_h rkey;
};

void send_blob(int sock, const void* p, size_t n) {
  uint64_t len = n;
  if (write(sock, &len, sizeof len) != sizeof len || write(sock, p, n) != static_cast<ssize_t>(n)) {
    std::perror("ucp_registered: write");
    std::exit(1);
  }
}

std::string receive_blob(int sock) {
  uint64_t len = 0;
  if (read(sock, &len, sizeof len) != sizeof len) std::exit(1);
  std::string s(len, '\0');
  for (size_t got = 0; got < len;) {
    ssize_t n = read(sock, &s[got], len - got);
    if (n <= 0) std::exit(1);
    got += static_cast<size_t>(n);
  }
  return s;
}

// Both sides reach it before either goes on; the side that waits keeps its worker progressing.
void barrier(Side& s) {
  char c = 1;
  if (write(s.sock, &c, 1) != 1) std::exit(1);
  for (;;) {
    ucp_worker_progress(s.worker);
    if (recv(s.sock, &c, 1, MSG_DONTWAIT) == 1) return;
  }
}

void wait(Side& s, ucs_status_ptr_t req, const char* what) {
  if (req == nullptr) return;
  if (UCS_PTR_IS_ERR(req)) fail(what, UCS_PTR_STATUS(req));
  ucs_status_t st;
  while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) ucp_worker_progress(s.worker);
  ucp_request_free(req);
  check(st, what);
}

Side start(int sock) {
  Side s{};
  s.sock = sock;
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
  check(ucp_init(&params, nullptr, &s.context), "ucp_init");
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  check(ucp_worker_create(s.context, &wp, &s.worker), "ucp_worker_create");
  int fd = memfd_create("ucp_registered", 0);
  if (fd < 0 || ftruncate(fd, kMaxBytes + 64) != 0) std::exit(1);
  s.inbox = static_cast<char*>(mmap(nullptr, kMaxBytes + 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  if (s.inbox == MAP_FAILED) std::exit(1);
  close(fd);
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = s.inbox;
  mp.length = kMaxBytes + 64;
  check(ucp_mem_map(s.context, &mp, &s.memh), "ucp_mem_map");
  ucp_address_t* address;
  size_t address_len;
  check(ucp_worker_get_address(s.worker, &address, &address_len), "ucp_worker_get_address");
  send_blob(sock, address, address_len);
  ucp_worker_release_address(s.worker, address);
  void* packed;
  size_t packed_len;
  check(ucp_rkey_pack(s.context, s.memh, &packed, &packed_len), "ucp_rkey_pack");
  uint64_t base = reinterpret_cast<uint64_t>(s.inbox);
  send_blob(sock, &base, sizeof base);
  send_blob(sock, packed, packed_len);
  ucp_rkey_buffer_release(packed);
  std::string peer_address = receive_blob(sock);
  std::string peer_base = receive_blob(sock);
  std::string peer_rkey = receive_blob(sock);
  std::memcpy(&s.peer_base, peer_base.data(), sizeof s.peer_base);
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  ep.address = reinterpret_cast<const ucp_address_t*>(peer_address.data());
  check(ucp_ep_create(s.worker, &ep, &s.ep), "ucp_ep_create");
  check(ucp_ep_rkey_unpack(s.ep, peer_rkey.data(), &s.rkey), "ucp_ep_rkey_unpack");
  return s;
}

void put(Side& s, const void* src, size_t bytes) {
  ucp_request_param_t param{};
  wait(s, ucp_put_nbx(s.ep, src, bytes, s.peer_base, s.rkey, &param), "ucp_put_nbx");
}

volatile uint64_t* last_word(char* buf, size_t bytes) { return reinterpret_cast<volatile uint64_t*>(buf + bytes - 8); }

double put_latency(Side& s, bool first, LocalBuffer& local, size_t bytes, long iters) {
  *last_word(s.inbox, bytes) = 0;
  barrier(s);
  double round_trip = median_us(iters, [&](long i) {
    std::memcpy(local.data() + bytes - 8, &i, 8);
    if (first) put(s, local.data(), bytes);
    while (*last_word(s.inbox, bytes) < static_cast<uint64_t>(i)) ucp_worker_progress(s.worker);
    if (!first) put(s, local.data(), bytes);
  });
  barrier(s);
  return round_trip / 2;
}

template <typename Op>
double one_sided(Side& s, bool first, long iters, Op op) {
  double result = 0;
  barrier(s);
  if (first) result = median_us(iters, [&](long) { op(); });
  barrier(s);
  return result;
}

double put_bandwidth(Side& s, bool first, LocalBuffer& local, size_t bytes, long iters) {
  double mbps = 0;
  barrier(s);
  if (first) {
    ucp_request_param_t param{};
    mbps = stream_mbps(bytes, iters, [&] { put(s, local.data(), bytes); },
                       [&] { wait(s, ucp_ep_flush_nbx(s.ep, &param), "ucp_ep_flush_nbx"); });
  }
  barrier(s);
  return mbps;
}

void run(Side& s, bool first, long max_iters) {
  LocalBuffer local;
  auto row = [&](const char* figure, size_t bytes, double value) {
    if (first) std::printf("%s %zu %.3f\n", figure, bytes, value);
  };
  for (size_t bytes : kSizes) row("put_lat", bytes, put_latency(s, first, local, bytes, iterations(bytes, max_iters)));
  for (size_t bytes : kSizes) {
    row("get_lat", bytes, one_sided(s, first, iterations(bytes, max_iters), [&] {
          ucp_request_param_t param{};
          wait(s, ucp_get_nbx(s.ep, local.data(), bytes, s.peer_base, s.rkey, &param), "ucp_get_nbx");
        }));
  }
  uint64_t fetched = 0, one = 1;
  row("fadd_lat", 8, one_sided(s, first, iterations(8, max_iters), [&] {
        ucp_request_param_t param{};
        param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.datatype = ucp_dt_make_contig(8);
        param.reply_buffer = &fetched;
        wait(s, ucp_atomic_op_nbx(s.ep, UCP_ATOMIC_OP_ADD, &one, 1, s.peer_base + kMaxBytes, s.rkey, &param),
             "ucp_atomic_op_nbx");
      }));
  for (size_t bytes : kSizes) row("put_bw", bytes, put_bandwidth(s, first, local, bytes, iterations(bytes, max_iters)));
}

}  // namespace

int main(int argc, char** argv) {
  long max_iters = 10000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--max-iters") == 0 && i + 1 < argc) {
      max_iters = std::atol(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: ucp_registered [--max-iters N]\n");
      return 2;
    }
  }
  int socks[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks) != 0) return 1;
  std::fflush(stdout);
  pid_t child = fork();
  if (child < 0) return 1;
  const bool first = child != 0;
  close(socks[first ? 1 : 0]);
  Side s = start(socks[first ? 0 : 1]);
  run(s, first, max_iters);
  barrier(s);
  ucp_rkey_destroy(s.rkey);
  ucp_request_param_t param{};
  ucs_status_ptr_t req = ucp_ep_close_nbx(s.ep, &param);
  if (req != nullptr && !UCS_PTR_IS_ERR(req)) {
    while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(s.worker);
    ucp_request_free(req);
  }
  if (!first) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
