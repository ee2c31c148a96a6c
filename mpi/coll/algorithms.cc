#include "mpi/coll/algorithms.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

namespace gasket::mpi::coll {

namespace {
int wrap(int r, int n) { return ((r % n) + n) % n; }
}  // namespace

void copy_typed(Schedule& s, const Typed& dst, const Typed& src, bool alongside) {
  int64_t bytes = std::min(dst.bytes(), src.bytes());
  if (bytes == 0) return;
  std::function<void()> step;
  if (dst.type->contiguous() && src.type->contiguous()) {
    char* to = static_cast<char*>(dst.buf) + dst.type->true_lb;
    const char* from = static_cast<const char*>(src.buf) + src.type->true_lb;
    if (to == from) return;
    step = [to, from, bytes] { std::memmove(to, from, static_cast<size_t>(bytes)); };
  } else {
    char* tmp = s.scratch(src.bytes());
    step = [dst, src, tmp] {
      datatype::pack(*src.type, src.buf, src.count, tmp);
      datatype::unpack(*dst.type, tmp, std::min(dst.bytes(), src.bytes()), dst.buf, dst.count);
    };
  }
  if (alongside) {
    s.alongside(std::move(step));
  } else {
    s.local(std::move(step));
  }
}

void barrier(Schedule& s, const Ranks& g) {
  for (int k = 1; k < g.size; k <<= 1) {
    s.send_bytes(g, wrap(g.rank + k, g.size), nullptr, 0);
    s.recv_bytes(g, wrap(g.rank - k, g.size), nullptr, 0);
    s.next();
  }
}

namespace {

// Binomial tree from `root`: receive from the parent, then send to the children.
void bcast_tree(Schedule& s, const Ranks& g, const Typed& d, int root) {
  int n = g.size, vr = wrap(g.rank - root, n);
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      s.recv(g, wrap(vr - mask + root, n), d.buf, d.count, d.type, d.handle);
      s.next();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask < n) s.send(g, wrap(vr + mask + root, n), d.buf, d.count, d.type, d.handle);
  }
  s.next();
}

// Element ranges of `count` split in `n` near-equal chunks.
std::vector<int64_t> split(int64_t count, int n) {
  std::vector<int64_t> c(static_cast<size_t>(n), count / n);
  for (int i = 0; i < count % n; ++i) ++c[static_cast<size_t>(i)];
  return c;
}
std::vector<int64_t> offsets(const std::vector<int64_t>& counts, int64_t elem) {
  std::vector<int64_t> off(counts.size() + 1, 0);
  for (size_t i = 0; i < counts.size(); ++i) off[i + 1] = off[i] + counts[i] * elem;
  return off;
}

// After it, chunk `rank` of `acc` holds the reduction of every rank's chunk (commutative ops).
void ring_reduce_scatter(Schedule& s, const Ranks& g, char* acc, const std::vector<int64_t>& counts) {
  int n = g.size, r = g.rank;
  int64_t elem = s.packed_size();
  std::vector<int64_t> off = offsets(counts, elem);
  char* tmp = s.scratch(*std::max_element(counts.begin(), counts.end()) * elem);
  for (int step = 0; step < n - 1; ++step) {
    size_t sc = static_cast<size_t>(wrap(r - step - 1, n)), rc = static_cast<size_t>(wrap(r - step - 2, n));
    s.send_bytes(g, wrap(r + 1, n), acc + off[sc], counts[sc] * elem);
    s.recv_bytes(g, wrap(r - 1, n), tmp, counts[rc] * elem);
    s.reduce(tmp, acc + off[rc], counts[rc]);
    s.next();
  }
}

// Chunk i of `buf` (offset off[i], len[i] bytes) is complete at rank i; after it, everywhere.
void ring_allgather(Schedule& s, const Ranks& g, char* buf, const std::vector<int64_t>& off,
                    const std::vector<int64_t>& len) {
  int n = g.size, r = g.rank;
  for (int step = 0; step < n - 1; ++step) {
    size_t sc = static_cast<size_t>(wrap(r - step, n)), rc = static_cast<size_t>(wrap(r - step - 1, n));
    s.send_bytes(g, wrap(r + 1, n), buf + off[sc], len[sc]);
    s.recv_bytes(g, wrap(r - 1, n), buf + off[rc], len[rc]);
    s.next();
  }
}

}  // namespace

void bcast(Schedule& s, const Ranks& g, const Typed& d, int root) {
  int n = g.size;
  if (n == 1 || d.bytes() == 0) return;
  // The algorithm follows from the byte count alone: the ranks' types share a signature, not a
  // layout, so a rank whose type is not contiguous moves a packed copy (packed at the root before
  // the first round, unpacked elsewhere after the last).
  if (n == 2 || d.bytes() < kLargeBytes) {
    bcast_tree(s, g, d, root);
    return;
  }
  bool packed = !d.type->contiguous();
  char* base = packed ? s.scratch(d.bytes()) : static_cast<char*>(d.buf) + d.type->true_lb;
  if (packed && g.rank == root) s.local([d, base] { datatype::pack(*d.type, d.buf, d.count, base); });
  // Scatter the chunks from the root (binomial), then a ring allgather of them.
  std::vector<int64_t> len = split(d.bytes(), n), off = offsets(len, 1);
  // Chunk of relative rank v is chunk (v + root) % n; the subtree of v holds [v, v + 2^k).
  int vr = wrap(g.rank - root, n);
  // Relative chunk v lives at absolute chunk (v + root) % n; subtrees wrap around the end, so the
  // scatter moves each relative chunk by itself.
  int mask = 1;
  while (mask < n) {
    if (vr & mask) {
      int parent = wrap(vr - mask + root, n);
      for (int v = vr; v < std::min(n, vr + mask); ++v) {
        size_t a = static_cast<size_t>(wrap(v + root, n));
        s.recv_bytes(g, parent, base + off[a], len[a]);
      }
      s.next();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vr + mask >= n) continue;
    int child = wrap(vr + mask + root, n);
    for (int v = vr + mask; v < std::min(n, vr + 2 * mask); ++v) {
      size_t a = static_cast<size_t>(wrap(v + root, n));
      s.send_bytes(g, child, base + off[a], len[a]);
    }
  }
  s.next();
  ring_allgather(s, g, base, off, len);
  if (packed && g.rank != root) s.local([d, base] { datatype::unpack(*d.type, base, d.bytes(), d.buf, d.count); });
}

void reduce(Schedule& s, const Ranks& g, char* acc, char* out, int64_t count, int root, bool commutative) {
  int n = g.size;
  int64_t bytes = count * s.packed_size();
  int tree_root = commutative ? root : 0;
  int vr = wrap(g.rank - tree_root, n);
  char* tmp = s.scratch(bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      s.send_bytes(g, wrap(vr - mask + tree_root, n), acc, bytes);
      s.next();
      break;
    }
    if (vr + mask < n) {
      // acc holds ranks [vr, vr + mask), tmp the next ones: tmp = acc op tmp keeps rank order.
      s.recv_bytes(g, wrap(vr + mask + tree_root, n), tmp, bytes);
      s.reduce(acc, tmp, count);
      std::swap(acc, tmp);
    }
  }
  if (tree_root == root) {
    if (g.rank == root) s.copy(out, acc, bytes);
    return;
  }
  if (g.rank == tree_root) s.send_bytes(g, root, acc, bytes);
  if (g.rank == root) s.recv_bytes(g, tree_root, out, bytes);
  s.next();
}

void allreduce(Schedule& s, const Ranks& g, char* acc, char* out, int64_t count, bool commutative) {
  int n = g.size, r = g.rank;
  int64_t bytes = count * s.packed_size();
  if (n > 1 && commutative && bytes >= kLargeBytes && count >= n) {
    std::vector<int64_t> counts = split(count, n);
    ring_reduce_scatter(s, g, acc, counts);
    std::vector<int64_t> len(counts.size());
    for (size_t i = 0; i < counts.size(); ++i) len[i] = counts[i] * s.packed_size();
    ring_allgather(s, g, acc, offsets(counts, s.packed_size()), len);
    s.copy(out, acc, bytes);
    return;
  }
  // Recursive doubling over the largest power of two; the first 2 * rem ranks fold in pairs.
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  int rem = n - pof2;
  char* tmp = s.scratch(bytes);
  int newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      s.send_bytes(g, r + 1, acc, bytes);
      newrank = -1;
    } else {
      s.recv_bytes(g, r - 1, tmp, bytes);
      s.reduce(tmp, acc, count);  // lower rank first
      newrank = r / 2;
    }
    s.next();
  } else {
    newrank = r - rem;
  }
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      int nd = newrank ^ mask;
      int dst = nd < rem ? nd * 2 + 1 : nd + rem;
      s.send_bytes(g, dst, acc, bytes);
      s.recv_bytes(g, dst, tmp, bytes);
      if (dst < r) {
        s.reduce(tmp, acc, count);
      } else {
        s.reduce(acc, tmp, count);
        std::swap(acc, tmp);
      }
      s.next();
    }
  }
  if (r < 2 * rem) {
    if (r % 2 == 1) {
      s.send_bytes(g, r - 1, acc, bytes);
    } else {
      s.recv_bytes(g, r + 1, acc, bytes);
    }
    s.next();
  }
  s.copy(out, acc, bytes);
}

void reduce_scatter(Schedule& s, const Ranks& g, char* acc, const std::vector<int64_t>& counts, char* out,
                    bool commutative) {
  int64_t elem = s.packed_size();
  std::vector<int64_t> off = offsets(counts, elem);
  size_t me = static_cast<size_t>(g.rank);
  if (commutative && g.size > 1) {
    ring_reduce_scatter(s, g, acc, counts);
    s.copy(out, acc + off[me], counts[me] * elem);
    return;
  }
  char* all = s.scratch(off.back());
  reduce(s, g, acc, all, off.back() / std::max<int64_t>(elem, 1), 0, commutative);
  if (g.rank == 0) {
    for (int i = 1; i < g.size; ++i) s.send_bytes(g, i, all + off[static_cast<size_t>(i)], counts[static_cast<size_t>(i)] * elem);
    s.copy(out, all, counts[0] * elem);
  } else {
    s.recv_bytes(g, 0, out, counts[me] * elem);
  }
  s.next();
}

void scan(Schedule& s, const Ranks& g, const char* mine, char* out, int64_t count, bool exclusive,
          bool commutative) {
  int n = g.size, r = g.rank;
  int64_t bytes = count * s.packed_size();
  char* partial = s.scratch(bytes);
  char* tmp = s.scratch(bytes);
  s.copy(partial, mine, bytes);
  if (!exclusive) s.copy(out, mine, bytes);
  bool have = !exclusive;
  for (int mask = 1; mask < n; mask <<= 1) {
    int dst = r ^ mask;
    if (dst >= n) continue;
    s.send_bytes(g, dst, partial, bytes);
    s.recv_bytes(g, dst, tmp, bytes);
    if (dst < r) {  // tmp covers lower ranks
      if (have) {
        s.reduce(tmp, out, count);
      } else {
        s.copy(out, tmp, bytes);
        have = true;
      }
      s.reduce(tmp, partial, count);
    } else if (commutative) {
      s.reduce(tmp, partial, count);
    } else {
      s.reduce(partial, tmp, count);
      std::swap(partial, tmp);
    }
    s.next();
  }
}

void gather(Schedule& s, const Ranks& g, const Typed& mine, const std::vector<Typed>& blocks, int root, bool self) {
  if (!blocks.empty()) {
    for (int i = 0; i < g.size; ++i) {
      const Typed& b = blocks[static_cast<size_t>(i)];
      if (!self || i != g.rank) s.recv(g, i, b.buf, b.count, b.type, b.handle);
    }
  } else {
    s.send(g, root, mine.buf, mine.count, mine.type, mine.handle);
  }
  s.next();
}

void scatter(Schedule& s, const Ranks& g, const std::vector<Typed>& blocks, const Typed& mine, int root, bool self) {
  if (!blocks.empty()) {
    for (int i = 0; i < g.size; ++i) {
      const Typed& b = blocks[static_cast<size_t>(i)];
      if (!self || i != g.rank) s.send(g, i, b.buf, b.count, b.type, b.handle);
    }
  } else {
    s.pull_alone();  // the root serves every receiver and copies its own block meanwhile
    s.recv(g, root, mine.buf, mine.count, mine.type, mine.handle);
  }
  s.next();
}

// The one-round allgather's receives pull alone below this block size (mpi/coll/README.md).
constexpr int64_t kPullAloneBelow = 1 << 20;

void allgather(Schedule& s, const Ranks& g, const Typed& mine, const std::vector<Typed>& blocks, bool self) {
  int n = g.size;
  int64_t total = 0;
  for (const Typed& b : blocks) total += b.bytes();
  // Chosen from the byte count, the same on every rank (the layouts of the receive types may
  // differ from rank to rank): the ring forwards typed blocks, whatever their layout.
  if (self && n > 2 && total >= kLargeBytes) {
    // Ring over the blocks in place; step 0 sends this rank's block out of `mine`, so the copy
    // into its own slot may run alongside (the caller's copy_typed).
    for (int step = 0; step < n - 1; ++step) {
      const Typed& out = step == 0 ? mine : blocks[static_cast<size_t>(wrap(g.rank - step, n))];
      const Typed& in = blocks[static_cast<size_t>(wrap(g.rank - step - 1, n))];
      s.send(g, wrap(g.rank + 1, n), out.buf, out.count, out.type, out.handle);
      s.recv(g, wrap(g.rank - 1, n), in.buf, in.count, in.type, in.handle);
      s.next();
    }
    return;
  }
  // Blocks below 1 MiB: each rank copies what it receives, the peers need only have posted (2 ranks,
  // 64 KiB alone after a barrier: 9.7 -> 6.9 µs); 1 MiB blocks keep the split pull, which won there.
  if (mine.bytes() < kPullAloneBelow) s.pull_alone();
  for (int i = 0; i < n; ++i) {
    if (self && i == g.rank) continue;
    const Typed& b = blocks[static_cast<size_t>(i)];
    s.send(g, i, mine.buf, mine.count, mine.type, mine.handle);
    s.recv(g, i, b.buf, b.count, b.type, b.handle);
  }
  s.next();
}

void alltoall(Schedule& s, const Ranks& g, const std::vector<Typed>& to, const std::vector<Typed>& from, bool self) {
  int n = g.size;
  int64_t total = 0;
  for (const Typed& t : to) total += t.bytes();
  bool pairwise = self && total >= kLargeBytes && n > 2;  // rounds line up only within one group
  s.pull_alone();  // each rank copies what it receives: a round needs its peers posted, not running
  if (self) copy_typed(s, from[static_cast<size_t>(g.rank)], to[static_cast<size_t>(g.rank)]);
  for (int k = self ? 1 : 0; k < n; ++k) {
    // Round k: to rank + k, from rank - k (an intercommunicator: remote ranks, no self).
    size_t dst = static_cast<size_t>(wrap(g.rank + k, n)), src = static_cast<size_t>(wrap(g.rank - k, n));
    s.send(g, static_cast<int>(dst), to[dst].buf, to[dst].count, to[dst].type, to[dst].handle);
    s.recv(g, static_cast<int>(src), from[src].buf, from[src].count, from[src].type, from[src].handle);
    if (pairwise) s.next();
  }
  s.next();
}

}  // namespace gasket::mpi::coll
