// The tcp link against malformed and hostile input: wrong secret, truncated header, offset out of
// bounds, oversize length, unknown segment, a connection dropped mid-payload (and a reset at a frame boundary, which is a peer finishing). Each must be
// rejected with a clear message and without a byte landing outside the target segment. Also: two
// links writing to each other at once end up with one connection and FIFO delivery.
#define BOOST_TEST_MODULE pciddc_tcp_link
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/pciddc/tcp_link.h"

using namespace gasket;
using namespace gasket::backend::pciddc;

namespace gasket {
// Lets Boost.Test print status codes in failed comparisons.
inline std::ostream& operator<<(std::ostream& o, StatusCode c) { return o << static_cast<int>(c); }
}  // namespace gasket

namespace {
const std::string kSecret = "0123456789abcdef0123456789abcdef";
constexpr size_t kSeg = 4096;
constexpr unsigned char kGuard = 0xAA;

// PE 0's link with segment 1 = the middle page of a buffer whose outer pages are guards.
struct Receiver {
  explicit Receiver(int n_pes = 2) : memory(3 * kSeg, kGuard) {
    std::memset(segment(), 0, kSeg);
    TcpLink::Options o;
    o.my_pe = 0;
    o.n_pes = n_pes;
    o.secret = kSecret;
    o.peer_address = [](int pe) -> Result<PeerAddress> { return invalid_argument("no peers here"); };
    o.notify = [this](int src, uint32_t id) { notified.push_back({src, id}); };
    auto l = TcpLink::create(std::move(o));
    BOOST_TEST_REQUIRE(l.is_ok());
    link = std::move(l.value());
    BOOST_TEST_REQUIRE(link->register_segment(1, segment(), kSeg).is_ok());
  }
  char* segment() { return reinterpret_cast<char*>(memory.data()) + kSeg; }
  bool guards_intact() const {
    for (size_t i = 0; i < kSeg; ++i) {
      if (memory[i] != kGuard || memory[2 * kSeg + i] != kGuard) return false;
    }
    return true;
  }
  // Services until the link reports an error or `done` holds, for at most 5 s.
  template <typename Done>
  Status serve_until(Done done) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < end) {
      Status st = link->service(true);
      if (!st.is_ok()) return st;
      if (done()) return Status::ok();
      usleep(1000);
    }
    return Status(StatusCode::kInternal, "test timed out");
  }
  std::vector<unsigned char> memory;
  std::unique_ptr<TcpLink> link;
  std::vector<std::pair<int, uint32_t>> notified;
};

// A raw socket playing PE 1 (or a stranger).
struct Client {
  explicit Client(uint16_t port) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  }
  ~Client() {
    if (fd >= 0) close(fd);
  }
  void send_bytes(const void* p, size_t n) { BOOST_TEST_REQUIRE(::send(fd, p, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n)); }
  void hello(uint32_t as_pe, const std::string& secret) {
    pe = as_pe;
    wire::Hello h{wire::kHelloMagic, pe, static_cast<uint32_t>(secret.size()), 0};
    send_bytes(&h, sizeof h);
    send_bytes(secret.data(), secret.size());
  }
  // Returns the accept byte, or -1 when the link closed the socket.
  int answer() {
    char c;
    ssize_t n = recv(fd, &c, 1, 0);
    return n == 1 ? c : -1;
  }
  void frame(uint32_t segment, uint64_t offset, uint32_t length, uint8_t flags = kLastOfMessage, uint32_t id = 7,
             uint16_t wire_flags = 0) {
    header(static_cast<uint8_t>(wire::FrameKind::kWrite), segment, offset, length, flags, id, wire_flags);
  }
  // A frame header of any kind (no payload follows).
  void header(uint8_t kind, uint32_t segment, uint64_t offset, uint32_t length, uint8_t flags, uint32_t id,
              uint16_t wire_flags) {
    wire::FrameHeader h{};
    h.magic = wire::kFrameMagic;
    h.src_pe = pe;
    h.segment = segment;
    h.offset = offset;
    h.length = length;
    h.id = id;
    h.flags = flags;
    h.kind = kind;
    h.wire_flags = wire_flags;
    send_bytes(&h, sizeof h);
  }
  void hang_up() {
    close(fd);
    fd = -1;
  }
  // Closes with a reset instead of a FIN, as a kernel does when frames to this socket were unread.
  void reset() {
    linger no_linger{1, 0};
    BOOST_TEST_REQUIRE(setsockopt(fd, SOL_SOCKET, SO_LINGER, &no_linger, sizeof no_linger) == 0);
    hang_up();
  }
  int fd = -1;
  uint32_t pe = 1;  // the PE it plays
};

// Authenticated client: hello accepted by the receiver.
void authenticate(Receiver& r, Client& c, uint32_t pe = 1) {
  c.hello(pe, kSecret);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return true; }).is_ok());
  BOOST_TEST_REQUIRE(r.serve_until([&] { return true; }).is_ok());
  BOOST_TEST_REQUIRE(c.answer() == 1);
}

bool untouched(Receiver& r, size_t from = 0) {
  for (size_t i = from; i < kSeg; ++i) {
    if (r.segment()[i] != 0) return false;
  }
  return r.guards_intact();
}
}  // namespace

BOOST_AUTO_TEST_CASE(valid_write_lands_and_notifies) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  std::string payload = "remote write";
  c.frame(1, 100, static_cast<uint32_t>(payload.size()), kLastOfMessage | kNotifyReceiver, 0xABCDEF);
  c.send_bytes(payload.data(), payload.size());
  BOOST_TEST_REQUIRE(r.serve_until([&] { return !r.notified.empty(); }).is_ok());
  BOOST_TEST(std::string(r.segment() + 100, payload.size()) == payload);
  BOOST_TEST(r.notified[0].first == 1);
  BOOST_TEST(r.notified[0].second == 0xABCDEFu);
  BOOST_TEST(r.guards_intact());
}

BOOST_AUTO_TEST_CASE(wrong_secret_is_rejected_without_ending_the_job) {
  Receiver r;
  Client c(r.link->port());
  c.hello(1, "ffffffffffffffffffffffffffffffff");
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.link->rejected() == 1; }).is_ok());
  BOOST_TEST(r.link->last_rejection().find("presented a wrong job secret") != std::string::npos,
             r.link->last_rejection());
  BOOST_TEST(c.answer() == -1);  // closed, nothing accepted
  Client stranger(r.link->port());
  const char junk[] = "GET / HTTP/1.0\r\n\r\n";
  stranger.send_bytes(junk, sizeof junk);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.link->rejected() == 2; }).is_ok());
  BOOST_TEST(r.link->last_rejection().find("does not start with a gasket hello") != std::string::npos,
             r.link->last_rejection());
  Client impostor(r.link->port());
  impostor.hello(0, kSecret);  // claims to be the receiver itself
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.link->rejected() == 3; }).is_ok());
  BOOST_TEST(r.link->last_rejection().find("claims to be PE 0") != std::string::npos, r.link->last_rejection());
  BOOST_TEST(untouched(r));
}

BOOST_AUTO_TEST_CASE(truncated_header_is_reported) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  char partial[10] = {};
  c.send_bytes(partial, sizeof partial);
  c.hang_up();
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.code() == StatusCode::kProtocolError);
  BOOST_TEST(st.message().find("connection from PE 1 dropped mid-header (10 of 40 header bytes)") != std::string::npos,
             st.message());
  BOOST_TEST(untouched(r));
}

// A peer ending its job while our last frames to it were unread resets the connection (slurm_test
// "globals on 4 PEs over pciddc tcp" failed its job with "dropped mid-header (0 of 40 header bytes):
// Connection reset by peer"): at a frame boundary that is the peer finishing, not an error.
BOOST_AUTO_TEST_CASE(reset_at_a_frame_boundary_is_an_orderly_close) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  int one = 1;  // each send leaves at once (no Nagle delay): the reset discards only what is unsent
  BOOST_TEST_REQUIRE(setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0);
  std::string payload = "last write";
  c.frame(1, 200, static_cast<uint32_t>(payload.size()), kLastOfMessage | kNotifyReceiver, 42);
  c.send_bytes(payload.data(), payload.size());
  c.reset();
  Status landed = r.serve_until([&] { return !r.notified.empty(); });
  BOOST_TEST_REQUIRE(landed.is_ok(), landed.message());  // sent before the reset: landed
  BOOST_TEST(std::string(r.segment() + 200, payload.size()) == payload);
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.message() == "test timed out", st.message());  // no protocol error: the link serves on
  BOOST_TEST(r.guards_intact());
}

BOOST_AUTO_TEST_CASE(offset_out_of_bounds_is_rejected_before_any_byte_lands) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  c.frame(1, kSeg - 100, 200);
  std::vector<char> payload(200, 'x');
  c.send_bytes(payload.data(), payload.size());
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.code() == StatusCode::kProtocolError);
  BOOST_TEST(st.message().find("offset 3996 + length 200 runs past the end of segment 1 (4096 bytes); dropping the connection") !=
                 std::string::npos,
             st.message());
  BOOST_TEST(untouched(r));
  BOOST_TEST(c.answer() == -1);  // dropped
}

BOOST_AUTO_TEST_CASE(huge_offset_does_not_wrap) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  c.frame(1, ~uint64_t{0} - 10, 100);
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.message().find("runs past the end of segment 1") != std::string::npos, st.message());
  BOOST_TEST(untouched(r));
}

BOOST_AUTO_TEST_CASE(oversize_length_is_rejected) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  c.frame(1, 0, static_cast<uint32_t>(kMaxEntryBytes + 1));
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.message().find("length 65537 exceeds the 65536-byte entry limit") != std::string::npos, st.message());
  BOOST_TEST(untouched(r));
}

// A header claiming the largest length the field holds, with no payload behind it, is refused as
// soon as the header is whole: the receiver never waits for payload that is not coming.
BOOST_AUTO_TEST_CASE(largest_length_without_payload_is_rejected_at_the_header) {
  for (uint32_t length : {0xffffffffu, 0x80000000u, static_cast<uint32_t>(kMaxEntryBytes) + 1}) {
    Receiver r;
    Client c(r.link->port());
    authenticate(r, c);
    c.frame(1, 0, length);
    Status st = r.serve_until([] { return false; });
    BOOST_TEST(st.code() == StatusCode::kProtocolError);
    BOOST_TEST(st.message().find("length " + std::to_string(length) + " exceeds the 65536-byte entry limit") !=
                   std::string::npos,
               st.message());
    BOOST_TEST(untouched(r));
    BOOST_TEST(c.answer() == -1);  // dropped
  }
}

// The length is checked first, for every frame kind: a flush request, a flush answer, a frame of
// an unknown kind or a write with invalid flags, each claiming 0xffffffff bytes and carrying
// none, is refused at its header with the length and the limit, not by a later field's check.
BOOST_AUTO_TEST_CASE(largest_length_is_rejected_at_the_header_for_every_kind) {
  struct Case {
    uint8_t kind;
    uint8_t flags;
    uint16_t wire_flags;
  };
  const Case cases[] = {
      {static_cast<uint8_t>(wire::FrameKind::kFlushRequest), 0, 0},
      {static_cast<uint8_t>(wire::FrameKind::kFlushAck), 0, 0},
      {77, 0, 0},                                                        // no such kind
      {static_cast<uint8_t>(wire::FrameKind::kWrite), 0xf0, 0},          // invalid flags
      {static_cast<uint8_t>(wire::FrameKind::kWrite), kLastOfMessage, 0x8000},  // invalid wire flags
  };
  for (const Case& k : cases) {
    Receiver r;
    Client c(r.link->port());
    authenticate(r, c);
    c.header(k.kind, 1, 0, 0xffffffffu, k.flags, 0, k.wire_flags);
    Status st = r.serve_until([] { return false; });
    BOOST_TEST(st.code() == StatusCode::kProtocolError);
    BOOST_TEST(st.message().find("frame from PE 1: length 4294967295 exceeds the 65536-byte entry limit") !=
                   std::string::npos,
               "kind " << int(k.kind) << ": " << st.message());
    BOOST_TEST(untouched(r));
    BOOST_TEST(c.answer() == -1);  // dropped, no flush answer
  }
}

// A control frame within the limit but with a length is still refused, naming the length.
BOOST_AUTO_TEST_CASE(control_frame_with_a_length_is_rejected) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  c.header(static_cast<uint8_t>(wire::FrameKind::kFlushRequest), 0, 0, 16, 0, 0, 0);
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.message().find("frame from PE 1: control frame (kind 2) claims a length of 16 bytes; control frames "
                               "carry none") != std::string::npos,
             st.message());
  BOOST_TEST(c.answer() == -1);
}

BOOST_AUTO_TEST_CASE(unknown_segment_and_forged_source_are_rejected) {
  {
    Receiver r;
    Client c(r.link->port());
    authenticate(r, c);
    c.frame(5, 0, 8);
    Status st = r.serve_until([] { return false; });
    BOOST_TEST(st.message().find("targets segment 5, which is not registered here") != std::string::npos, st.message());
    BOOST_TEST(untouched(r));
  }
  {
    Receiver r;
    Client c(r.link->port());
    authenticate(r, c);
    wire::FrameHeader h{};
    h.magic = wire::kFrameMagic;
    h.src_pe = 0;  // forged
    h.segment = 1;
    h.length = 8;
    h.kind = static_cast<uint8_t>(wire::FrameKind::kWrite);
    c.send_bytes(&h, sizeof h);
    Status st = r.serve_until([] { return false; });
    BOOST_TEST(st.message().find("frame from PE 1 names PE 0 as its source") != std::string::npos, st.message());
    BOOST_TEST(untouched(r));
  }
}

BOOST_AUTO_TEST_CASE(connection_dropped_mid_payload_is_reported) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  c.frame(1, 1000, 1000, kLastOfMessage | kNotifyReceiver);
  std::vector<char> part(300, 'y');
  c.send_bytes(part.data(), part.size());
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.segment()[1299] == 'y'; }).is_ok());
  c.hang_up();
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.code() == StatusCode::kProtocolError);
  BOOST_TEST(st.message().find("dropped mid-payload (300 of 1000 bytes landed in segment 1 at offset 1000)") !=
                 std::string::npos,
             st.message());
  BOOST_TEST(r.notified.empty());  // an incomplete write never notifies
  for (size_t i = 0; i < 1000; ++i) BOOST_TEST_REQUIRE(r.segment()[i] == 0);
  BOOST_TEST(untouched(r, 1300));
}

BOOST_AUTO_TEST_CASE(two_links_writing_at_once_share_one_connection_in_order) {
  std::vector<char> seg0(kSeg * 16, 0), seg1(kSeg * 16, 0);
  std::vector<std::pair<int, uint32_t>> got0, got1;
  std::unique_ptr<TcpLink> links[2];
  uint16_t ports[2];
  for (int pe = 0; pe < 2; ++pe) {
    TcpLink::Options o;
    o.my_pe = pe;
    o.n_pes = 2;
    o.secret = kSecret;
    o.peer_address = [&ports](int peer) -> Result<PeerAddress> {
      return PeerAddress{"127.0.0.1", std::to_string(ports[peer]), "127.0.0.1"};
    };
    auto* got = pe == 0 ? &got0 : &got1;
    o.notify = [got](int src, uint32_t id) { got->push_back({src, id}); };
    auto l = TcpLink::create(std::move(o));
    BOOST_TEST_REQUIRE(l.is_ok());
    links[pe] = std::move(l.value());
    ports[pe] = links[pe]->port();
    BOOST_TEST_REQUIRE(links[pe]->register_segment(1, pe == 0 ? seg0.data() : seg1.data(), seg0.size()).is_ok());
  }
  const uint32_t kWrites = 200;
  std::vector<char> big(kMaxEntryBytes, 'b');
  auto writer = [&](int pe, std::vector<std::pair<int, uint32_t>>* got, Status* result) {
    for (uint32_t i = 0; i < kWrites && result->is_ok(); ++i) {
      SendEntry e;
      e.id = i;
      e.dst_pe = 1 - pe;
      e.dst = gasket::backend::RemoteAddress{1, (i % 2 == 0) ? 0 : kSeg};
      e.src = big.data();
      e.length = static_cast<uint32_t>(i % 2 == 0 ? kMaxEntryBytes : 8);
      e.flags = kLastOfMessage | kNotifyReceiver;
      *result = links[pe]->write(e);
    }
    if (result->is_ok()) *result = links[pe]->quiet();
    // Keep serving until the peer's writes have all arrived.
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (result->is_ok() && got->size() < kWrites && std::chrono::steady_clock::now() < end) {
      *result = links[pe]->service(true);
      usleep(100);
    }
  };
  Status st0, st1;
  std::thread t(writer, 1, &got1, &st1);
  writer(0, &got0, &st0);
  t.join();
  BOOST_TEST(st0.is_ok(), st0.message());
  BOOST_TEST(st1.is_ok(), st1.message());
  BOOST_TEST_REQUIRE(got0.size() == kWrites);
  BOOST_TEST_REQUIRE(got1.size() == kWrites);
  for (uint32_t i = 0; i < kWrites; ++i) {
    BOOST_TEST_REQUIRE(got0[i].second == i);  // FIFO
    BOOST_TEST_REQUIRE(got1[i].second == i);
  }
  BOOST_TEST(seg0[kMaxEntryBytes - 1] == 'b');
  BOOST_TEST(links[0]->describe().find("1 connections") != std::string::npos, links[0]->describe());
  BOOST_TEST(links[1]->describe().find("1 connections") != std::string::npos, links[1]->describe());
}

// Every frame acknowledges the frames its sender has received (wire::FrameHeader::landed), so a
// quiet after reverse traffic needs no flush round trip, and one without waits for an
// acknowledgement that covers its writes (one flush round trip per MPI_Win_flush_local).
namespace {
wire::FrameHeader read_frame(Client& c, std::vector<char>* payload) {
  wire::FrameHeader h{};
  BOOST_TEST_REQUIRE(recv(c.fd, &h, sizeof h, MSG_WAITALL) == static_cast<ssize_t>(sizeof h));
  payload->resize(h.length);
  if (h.length > 0) BOOST_TEST_REQUIRE(recv(c.fd, payload->data(), h.length, MSG_WAITALL) == static_cast<ssize_t>(h.length));
  return h;
}

void control_frame(Client& c, wire::FrameKind kind, uint64_t landed) {
  wire::FrameHeader h{};
  h.magic = wire::kFrameMagic;
  h.src_pe = c.pe;
  h.kind = static_cast<uint8_t>(kind);
  h.landed = landed;
  c.send_bytes(&h, sizeof h);
}

void write_to_client(Receiver& r, const char* text) {
  SendEntry e;
  e.id = 3;
  e.dst_pe = 1;
  e.dst = gasket::backend::RemoteAddress{1, 0};
  e.src = text;
  e.length = static_cast<uint32_t>(std::strlen(text));
  e.flags = kLastOfMessage;
  BOOST_TEST_REQUIRE(r.link->write(e).is_ok());
}

// Serves PE 0's link until it sends PE 1 a frame, which must be a flush acknowledgement; returns it.
wire::FrameHeader serve_until_acknowledged(Receiver& r, Client& c) {
  char peek;
  BOOST_TEST_REQUIRE(r.serve_until([&] { return recv(c.fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) == 1; }).is_ok());
  std::vector<char> payload;
  wire::FrameHeader ack = read_frame(c, &payload);
  BOOST_TEST(ack.kind == static_cast<uint8_t>(wire::FrameKind::kFlushAck));
  return ack;
}

// `count` notifying writes of 8 bytes from `src_pe` at offsets first, first + 8, ... of segment 1,
// frame i carrying id i and the letter 'A' + i % 26, in one string as the wire carries them.
std::string notifying_writes(uint32_t src_pe, uint64_t first, uint32_t count) {
  std::string frames;
  for (uint32_t i = 0; i < count; ++i) {
    wire::FrameHeader h{};
    h.magic = wire::kFrameMagic;
    h.src_pe = src_pe;
    h.segment = 1;
    h.offset = first + 8 * i;
    h.length = 8;
    h.id = i;
    h.flags = kLastOfMessage | kNotifyReceiver;
    h.kind = static_cast<uint8_t>(wire::FrameKind::kWrite);
    frames.append(reinterpret_cast<const char*>(&h), sizeof h);
    frames.append(8, static_cast<char>('A' + i % 26));
  }
  return frames;
}
}  // namespace

// A lone plain write asks for an acknowledgement itself (wire::kAckWanted), so the quiet after it
// sends nothing and waits for an acknowledgement covering it: one round trip per put + quiet.
BOOST_AUTO_TEST_CASE(quiet_after_a_lone_write_waits_for_the_acknowledgement_it_asked_for) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  write_to_client(r, "first");
  std::atomic<bool> quiet_done{false};
  Status quiet_status;
  std::thread quiet([&] {
    quiet_status = r.link->quiet();
    quiet_done = true;
  });
  std::vector<char> payload;
  wire::FrameHeader w = read_frame(c, &payload);
  BOOST_TEST(w.kind == static_cast<uint8_t>(wire::FrameKind::kWrite));
  BOOST_TEST(w.wire_flags == wire::kAckWanted);
  BOOST_TEST(std::string(payload.begin(), payload.end()) == "first");
  // A frame acknowledging nothing of PE 0's does not complete the quiet ...
  control_frame(c, wire::FrameKind::kFlushAck, 0);
  usleep(50000);
  BOOST_TEST(!quiet_done.load());
  char peek;
  BOOST_TEST(recv(c.fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) == -1);  // and the quiet sent nothing
  // ... one acknowledging the write does (any kind of frame may carry it).
  control_frame(c, wire::FrameKind::kFlushAck, 1);
  quiet.join();
  BOOST_TEST(quiet_status.is_ok(), quiet_status.message());
  BOOST_TEST(r.link->describe().find("0 flush requests") != std::string::npos, r.link->describe());
}

// While an asked acknowledgement is on its way, later writes do not ask again (a stream of puts
// costs the target one acknowledgement, not one per put), and a quiet after them sends one flush
// request for the writes the ask did not cover.
BOOST_AUTO_TEST_CASE(quiet_after_writes_the_ask_does_not_cover_sends_a_flush_request) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  write_to_client(r, "one");
  write_to_client(r, "two");
  std::vector<char> payload;
  BOOST_TEST(read_frame(c, &payload).wire_flags == wire::kAckWanted);
  BOOST_TEST(read_frame(c, &payload).wire_flags == 0);
  std::thread answer([&] {
    std::vector<char> p;
    wire::FrameHeader f = read_frame(c, &p);
    BOOST_TEST(f.kind == static_cast<uint8_t>(wire::FrameKind::kFlushRequest));
    control_frame(c, wire::FrameKind::kFlushAck, 3);
  });
  Status st = r.link->quiet();
  answer.join();
  BOOST_TEST(st.is_ok(), st.message());
  BOOST_TEST(r.link->describe().find("1 flush requests") != std::string::npos, r.link->describe());
  // Everything was acknowledged: the next write asks again.
  write_to_client(r, "three");
  BOOST_TEST(read_frame(c, &payload).wire_flags == wire::kAckWanted);
}

// PE 1 has written "data" at offset 0 of PE 0's segment, asking for an acknowledgement.
struct AfterAnAsk {
  AfterAnAsk() : c(r.link->port()) {
    authenticate(r, c);
    c.frame(1, 0, 4, kLastOfMessage, 7, wire::kAckWanted);
    c.send_bytes("data", 4);
  }
  Receiver r;
  Client c;
};

// An ask followed by a frame that does not ask (an emulated get's data, then its notifying reply)
// is not answered: the peer's quiet sends a flush request for the later frame anyway, and an
// answer would cost the requester a send after every get.
BOOST_FIXTURE_TEST_CASE(ask_followed_by_a_frame_that_does_not_ask_is_not_answered, AfterAnAsk) {
  c.frame(1, 8, 5, kLastOfMessage | kNotifyReceiver, 9);
  c.send_bytes("reply", 5);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return !r.notified.empty(); }).is_ok());
  BOOST_TEST(std::memcmp(r.segment(), "data", 4) == 0);
  BOOST_TEST_REQUIRE(r.link->service(true).is_ok());
  char peek;
  BOOST_TEST(recv(c.fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) == -1);
  control_frame(c, wire::FrameKind::kFlushRequest, 0);
  BOOST_TEST(serve_until_acknowledged(r, c).landed == 3u);  // the flush request is answered
}

// A peer waiting in quiet for the answer to its ask still acknowledges what it receives: such an
// acknowledgement, arriving after the ask, must not cancel it (the peer would wait forever).
BOOST_FIXTURE_TEST_CASE(acknowledgement_after_an_ask_does_not_cancel_it, AfterAnAsk) {
  control_frame(c, wire::FrameKind::kFlushAck, 0);
  BOOST_TEST(serve_until_acknowledged(r, c).landed >= 1u);
}

// The receiving side: a write asking for an acknowledgement is answered once it has landed,
// without a flush request; one that does not ask is not.
BOOST_AUTO_TEST_CASE(write_asking_for_an_acknowledgement_is_answered_once_landed) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  c.frame(1, 0, 4);
  c.send_bytes("xxxx", 4);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return std::memcmp(r.segment(), "xxxx", 4) == 0; }).is_ok());
  char peek;
  BOOST_TEST(recv(c.fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) == -1);
  c.frame(1, 16, 4, kLastOfMessage, 7, wire::kAckWanted);
  c.send_bytes("asks", 4);
  wire::FrameHeader ack = serve_until_acknowledged(r, c);
  BOOST_TEST(std::memcmp(r.segment() + 16, "asks", 4) == 0);
  BOOST_TEST(ack.landed == 2u);
  // Unknown wire flags end the connection before the payload lands.
  c.frame(1, 32, 4, kLastOfMessage, 7, 4);
  c.send_bytes("evil", 4);
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.code() == StatusCode::kProtocolError);
  BOOST_TEST(st.message().find("invalid wire flags 4") != std::string::npos, st.message());
  BOOST_TEST(untouched(r, 32));
}

BOOST_AUTO_TEST_CASE(quiet_after_reverse_traffic_sends_no_flush_request) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  write_to_client(r, "data");
  std::vector<char> payload;
  BOOST_TEST_REQUIRE(read_frame(c, &payload).kind == static_cast<uint8_t>(wire::FrameKind::kWrite));
  // The peer's next frame (a write into PE 0, as a reply would be) acknowledges PE 0's write.
  wire::FrameHeader h{};
  h.magic = wire::kFrameMagic;
  h.src_pe = 1;
  h.segment = 1;
  h.offset = 100;
  h.length = 5;
  h.flags = kLastOfMessage;
  h.kind = static_cast<uint8_t>(wire::FrameKind::kWrite);
  h.landed = 1;
  c.send_bytes(&h, sizeof h);
  c.send_bytes("reply", 5);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return std::memcmp(r.segment() + 100, "reply", 5) == 0; }).is_ok());
  Status st = r.link->quiet();
  BOOST_TEST(st.is_ok(), st.message());
  BOOST_TEST(r.link->describe().find("0 flush requests") != std::string::npos, r.link->describe());
  // The frame PE 0 sends next (a flush answer) reports the peer's frame as landed.
  control_frame(c, wire::FrameKind::kFlushRequest, 1);
  wire::FrameHeader ack = serve_until_acknowledged(r, c);
  BOOST_TEST(ack.landed == 2u);
}

BOOST_AUTO_TEST_CASE(frame_acknowledging_more_than_was_sent_is_rejected) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  control_frame(c, wire::FrameKind::kFlushAck, 5);
  Status st = r.serve_until([] { return false; });
  BOOST_TEST(st.code() == StatusCode::kProtocolError);
  BOOST_TEST(st.message().find("frame from PE 1 reports 5 frames landed, but only 0 were sent to it") != std::string::npos,
             st.message());
}

// Frames read a block at a time (the staging buffer): a burst of small frames sent in one piece,
// whose last header is cut in two, lands whole and in order, and the cut frame lands once its
// second half arrives. The burst is longer than one service pass takes (64 frames), so frames
// left in the staging buffer must be served although the socket has nothing more to read.
BOOST_AUTO_TEST_CASE(burst_of_small_frames_read_in_blocks_lands_in_order) {
  Receiver r;
  Client c(r.link->port());
  authenticate(r, c);
  constexpr uint32_t kFrames = 150;
  const std::string burst = notifying_writes(1, 0, kFrames + 1);
  const size_t cut = burst.size() - 8 - 20;  // 20 bytes into the last frame's header
  c.send_bytes(burst.data(), cut);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.notified.size() == kFrames; }).is_ok());
  for (uint32_t i = 0; i < kFrames; ++i) {
    BOOST_TEST_REQUIRE(r.notified[i].second == i);
    BOOST_TEST_REQUIRE(r.segment()[8 * i + 7] == static_cast<char>('A' + i % 26));
  }
  BOOST_TEST(r.segment()[8 * kFrames] == 0);
  c.send_bytes(burst.data() + cut, burst.size() - cut);
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.notified.size() == kFrames + 1; }).is_ok());
  BOOST_TEST(r.segment()[8 * kFrames + 7] == static_cast<char>('A' + kFrames % 26));
  BOOST_TEST(untouched(r, 8 * (kFrames + 1)));
}

// The link has one staging buffer: a service pass takes at most 64 frames of a connection, so
// PE 1's burst leaves bytes staged when PE 2's socket is read into the buffer; PE 1's leftover
// then moves aside and is consumed first on its next pass. Every frame of both lands, in order per
// sender, with its bytes.
BOOST_AUTO_TEST_CASE(two_connections_share_the_staging_buffer) {
  Receiver r(3);
  Client one(r.link->port()), two(r.link->port());
  authenticate(r, one, 1);
  authenticate(r, two, 2);
  constexpr uint32_t kFrames = 200;  // 3 passes and a part per connection
  const std::string from_one = notifying_writes(1, 0, kFrames);
  one.send_bytes(from_one.data(), from_one.size());
  const std::string from_two = notifying_writes(2, 2048, kFrames);
  two.send_bytes(from_two.data(), from_two.size());
  BOOST_TEST_REQUIRE(r.serve_until([&] { return r.notified.size() == 2 * kFrames; }).is_ok());
  uint32_t next[3] = {0, 0, 0};
  for (const auto& [src, id] : r.notified) {
    BOOST_TEST_REQUIRE((src == 1 || src == 2));
    BOOST_TEST_REQUIRE(id == next[src]);
    ++next[src];
  }
  for (uint32_t i = 0; i < kFrames; ++i) {
    const std::string letters(8, static_cast<char>('A' + i % 26));
    BOOST_TEST_REQUIRE(std::string(r.segment() + 8 * i, 8) == letters);
    BOOST_TEST_REQUIRE(std::string(r.segment() + 2048 + 8 * i, 8) == letters);
  }
  BOOST_TEST(r.guards_intact());
  const std::string described = r.link->describe();
  BOOST_TEST(described.find(" 0 staged leftovers moved aside") == std::string::npos, described);
  BOOST_TEST(described.find("staged leftovers moved aside") != std::string::npos, described);
}

// The triangle hang: PE 0's write to PE 1 blocks (PE 1 is not reading), and while it waits
// PE 0 reads PE 2's flush request. Once the write completes, PE 0 must still answer PE 2, although
// PE 2 (waiting in its quiet) sends nothing more that would make its socket readable.
BOOST_AUTO_TEST_CASE(flush_request_read_during_a_blocked_send_is_answered) {
  Receiver r(3);
  Client one(r.link->port()), two(r.link->port());
  authenticate(r, one, 1);
  authenticate(r, two, 2);
  constexpr int kWrites = 400;  // 25 MiB: more than loopback buffers hold
  std::vector<char> big(kMaxEntryBytes, 'w');
  std::atomic<bool> written{false};
  Status write_status;
  std::thread writer([&] {
    for (int i = 0; i < kWrites && write_status.is_ok(); ++i) {
      SendEntry e;
      e.id = static_cast<uint32_t>(i);
      e.dst_pe = 1;
      e.dst = gasket::backend::RemoteAddress{1, 0};
      e.src = big.data();
      e.length = static_cast<uint32_t>(big.size());
      e.flags = kLastOfMessage;
      write_status = r.link->write(e);
    }
    written = true;
  });
  usleep(200000);
  BOOST_TEST_REQUIRE(!written.load());  // blocked: PE 1 reads nothing yet
  control_frame(two, wire::FrameKind::kFlushRequest, 0);
  usleep(500000);  // the blocked writer keeps receiving: it reads the request now
  std::vector<char> payload;
  for (int i = 0; i < kWrites; ++i) BOOST_TEST_REQUIRE(read_frame(one, &payload).length == kMaxEntryBytes);
  writer.join();
  BOOST_TEST_REQUIRE(write_status.is_ok(), write_status.message());
  char peek;
  BOOST_TEST_REQUIRE(r.serve_until([&] { return recv(two.fd, &peek, 1, MSG_PEEK | MSG_DONTWAIT) == 1; }).is_ok());
  wire::FrameHeader ack = read_frame(two, &payload);
  BOOST_TEST(ack.kind == static_cast<uint8_t>(wire::FrameKind::kFlushAck));
  BOOST_TEST(ack.landed == 1u);
}

// backend::InputSignal over tcp: a waiting PE sleeps in poll() on the fds
// prepare_sleep lists. A new connection and a frame arriving on an open one must each make one of
// them readable; with nothing sent, none is (so a sleeper would sleep until its limit).
BOOST_AUTO_TEST_CASE(prepare_sleep_lists_the_sockets_input_arrives_on) {
  Receiver r;
  auto readable_within = [&](int timeout_ms) {
    std::vector<pollfd> fds;
    BOOST_TEST_REQUIRE(r.link->prepare_sleep(&fds));
    BOOST_TEST_REQUIRE(!fds.empty());
    return poll(fds.data(), fds.size(), timeout_ms) > 0;
  };
  BOOST_TEST(!readable_within(0));
  Client c(r.link->port());
  BOOST_TEST(readable_within(5000));  // the listener: a connection to accept
  authenticate(r, c);
  BOOST_TEST(!readable_within(0));
  std::string payload = "wake up";
  c.frame(1, 8, static_cast<uint32_t>(payload.size()), kLastOfMessage | kNotifyReceiver, 5);
  c.send_bytes(payload.data(), payload.size());
  BOOST_TEST(readable_within(5000));  // the connection: a frame to read
  BOOST_TEST_REQUIRE(r.serve_until([&] { return !r.notified.empty(); }).is_ok());
  BOOST_TEST(std::string(r.segment() + 8, payload.size()) == payload);
  BOOST_TEST(!readable_within(0));  // served: nothing left to wake a sleeper
}
