// Multi-PE test of the collective algorithms: every PE runs these cases in the same order, on the
// whole job, on the even PEs (a strided set) and on all PEs in reverse order (a listed set).
#define BOOST_TEST_MODULE coll
#include <boost/test/unit_test.hpp>

#include <complex>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/coll/coll.h"
#include "tests/core/fixture.h"

using namespace gasket;

namespace {


// The sets every case runs on: world, even PEs (strided), every PE in reverse (listed).
std::vector<coll::PeSet> sets() {
  int n = n_pes();
  std::vector<int> reverse;
  for (int pe = n - 1; pe >= 0; --pe) reverse.push_back(pe);
  return {coll::PeSet::strided(0, 1, n, "test"), coll::PeSet::strided(0, 2, (n + 1) / 2, "test"),
          coll::PeSet::of_list(reverse, "test")};
}

// Runs `body` on each set this PE belongs to; between sets every PE waits for every other (so one
// set's traffic never meets another's), and the sync words must be back at zero.
template <typename Body>
void for_each_set(coll::SyncArea sync, Body body) {
  for (const coll::PeSet& set : sets()) {
    if (set.my_rank() >= 0) body(set);
    barrier_all();
    for (size_t k = 0; k < coll::kSyncWords; ++k) PE_EQUAL(sync[k], 0);
    barrier_all();
  }
}

struct Sym {
  coll::SyncArea sync = static_cast<int64_t*>(sym_calloc(coll::kSyncWords, sizeof(int64_t)));
  ~Sym() { sym_free(sync); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(pe_set_ranks) {
  int n = n_pes();
  coll::PeSet odd = coll::PeSet::strided(1, 2, n / 2, "test");
  for (int r = 0; r < odd.size(); ++r) PE_EQUAL(odd.rank_of(odd.pe(r)), r);
  PE_EQUAL(odd.rank_of(0), -1);
  PE_EQUAL(odd.my_rank(), my_pe() % 2 == 1 ? my_pe() / 2 : -1);
  coll::PeSet listed = coll::PeSet::of_list({n - 1, 0}, "test");
  PE_EQUAL(listed.pe(0), n - 1);
  PE_EQUAL(listed.rank_of(0), 1);
  PE_EQUAL(listed.is_strided(), false);
  coll::PeSet compact = coll::PeSet::of_list({0, 1}, "test");
  PE_EQUAL(compact.is_strided(), true);
  coll::PeSet sub = coll::PeSet::strided(0, 1, n, "test").subset({1, 0}, "test");
  PE_EQUAL(sub.pe(0), 1);
}

BOOST_AUTO_TEST_CASE(barrier_orders_puts) {
  Sym s;
  auto* box = static_cast<int64_t*>(sym_calloc(1, sizeof(int64_t)));
  for_each_set(s.sync, [&](const coll::PeSet& set) {
    for (int round = 1; round <= 50; ++round) {
      int next = set.pe((set.my_rank() + 1) % set.size());
      int64_t v = round * 1000 + my_pe();
      put(box, &v, sizeof v, next, "test");
      coll::barrier(set, s.sync, true, "test");
      int prev = set.pe((set.my_rank() + set.size() - 1) % set.size());
      PE_EQUAL(*box, round * 1000 + prev);
      coll::barrier(set, s.sync, false, "test");
    }
  });
  sym_free(box);
}

// Regression for the tree broadcast (kTreeMinPes members and more): broadcasts from every root in
// turn, back to back with no barrier between them, into the root's dest too, with data large
// enough to span many pieces; each member must see each root's data in turn. Two destinations
// alternate: the next broadcast may write this PE's other one while it checks this one.
BOOST_AUTO_TEST_CASE(broadcast_back_to_back_from_every_root) {
  Sym s;
  const size_t kElems = 64 * 1024;
  auto* dst = static_cast<int32_t*>(sym_calloc(2 * kElems, sizeof(int32_t)));
  std::vector<int32_t> src(kElems);
  for_each_set(s.sync, [&](const coll::PeSet& set) {
    int count = 0;
    for (int round = 0; round < 3; ++round) {
      for (int root = 0; root < set.size(); ++root, ++count) {
        auto value = [&](size_t i) { return static_cast<int32_t>(round * 1000000 + root * 1000 + i % 1000); };
        for (size_t i = 0; i < kElems; ++i) src[i] = value(i);
        int32_t* d = dst + (count % 2) * kElems;
        coll::broadcast(set, s.sync, d, src.data(), kElems * sizeof(int32_t), root, true, "test");
        size_t bad = 0;
        for (size_t i = 0; i < kElems; ++i) bad += d[i] != value(i);
        PE_EQUAL(bad, size_t{0});
      }
    }
  });
  sym_free(dst);
}

BOOST_AUTO_TEST_CASE(broadcast_collect_alltoall) {
  Sym s;
  int n = n_pes();
  const size_t kMax = 64;
  auto* src = static_cast<int32_t*>(sym_calloc(kMax * n, sizeof(int32_t)));
  auto* dst = static_cast<int32_t*>(sym_calloc(kMax * n * 2, sizeof(int32_t)));
  for_each_set(s.sync, [&](const coll::PeSet& set) {
    int me = set.my_rank(), sz = set.size();
    for (int root = 0; root < sz; ++root) {
      for (size_t i = 0; i < kMax; ++i) src[i] = static_cast<int32_t>(root * 100000 + i);
      std::memset(dst, 0xff, kMax * sizeof(int32_t));
      coll::barrier(set, s.sync, false, "test");  // every dest is reset before the root writes
      coll::broadcast(set, s.sync, dst, src, kMax * sizeof(int32_t), root, false, "test");
      if (me != root) {
        for (size_t i = 0; i < kMax; ++i) PE_EQUAL(dst[i], static_cast<int32_t>(root * 100000 + i));
      } else {
        PE_EQUAL(dst[0], -1);  // the deprecated form leaves the root's dest alone
      }
      coll::barrier(set, s.sync, false, "test");
    }
    // fcollect: 3 elements each
    for (int i = 0; i < 3; ++i) src[i] = me * 10 + i;
    coll::fcollect(set, s.sync, dst, src, 3 * sizeof(int32_t), "test");
    for (int r = 0; r < sz; ++r)
      for (int i = 0; i < 3; ++i) PE_EQUAL(dst[r * 3 + i], r * 10 + i);
    coll::barrier(set, s.sync, false, "test");
    // collect: member r gives r+1 elements
    for (int i = 0; i <= me; ++i) src[i] = me * 10 + i;
    coll::collect(set, s.sync, dst, src, static_cast<size_t>(me + 1) * sizeof(int32_t), "test");
    int at = 0;
    for (int r = 0; r < sz; ++r)
      for (int i = 0; i <= r; ++i, ++at) PE_EQUAL(dst[at], r * 10 + i);
    coll::barrier(set, s.sync, false, "test");
    // alltoall: block j of member r is r*100 + j (2 elements each)
    for (int j = 0; j < sz; ++j) src[2 * j] = src[2 * j + 1] = me * 100 + j;
    coll::alltoall(set, s.sync, dst, src, 2 * sizeof(int32_t), "test");
    for (int r = 0; r < sz; ++r) {
      PE_EQUAL(dst[2 * r], r * 100 + me);
      PE_EQUAL(dst[2 * r + 1], r * 100 + me);
    }
    coll::barrier(set, s.sync, false, "test");
    // alltoalls: 2 elements per block, source stride 2, destination stride 3
    std::memset(dst, 0, kMax * n * 2 * sizeof(int32_t));
    for (int j = 0; j < sz; ++j)
      for (int e = 0; e < 2; ++e) src[(j * 2 + e) * 2] = me * 100 + j * 10 + e;
    coll::barrier(set, s.sync, false, "test");
    coll::alltoalls(set, s.sync, dst, src, 3, 2, sizeof(int32_t), 2, "test");
    for (int r = 0; r < sz; ++r)
      for (int e = 0; e < 2; ++e) PE_EQUAL(dst[(r * 2 + e) * 3], r * 100 + me * 10 + e);
    coll::barrier(set, s.sync, false, "test");
  });
  sym_free(dst);
  sym_free(src);
}

BOOST_AUTO_TEST_CASE(reductions) {
  Sym s;
  const size_t kCount = 20000;  // larger than one bounce piece of a remote path
  auto* isrc = static_cast<int64_t*>(sym_calloc(kCount, sizeof(int64_t)));
  auto* dsrc = static_cast<double*>(sym_calloc(kCount, sizeof(double)));
  auto* csrc = static_cast<std::complex<float>*>(sym_calloc(4, sizeof(std::complex<float>)));
  std::vector<int64_t> idst(kCount);
  std::vector<double> ddst(kCount);
  for_each_set(s.sync, [&](const coll::PeSet& set) {
    int sz = set.size();
    int64_t sum_pe = 0, max_pe = 0, min_pe = 1 << 30, xor_pe = 0;
    for (int r = 0; r < sz; ++r) {
      int pe = set.pe(r);
      sum_pe += pe;
      max_pe = std::max<int64_t>(max_pe, pe);
      min_pe = std::min<int64_t>(min_pe, pe);
      xor_pe ^= pe + 1;
    }
    for (size_t i = 0; i < kCount; ++i) isrc[i] = my_pe() + static_cast<int64_t>(i);
    coll::reduce(set, s.sync, idst.data(), isrc, kCount, coll::ReduceOp::kSum, "test");
    for (size_t i = 0; i < kCount; i += 997) PE_EQUAL(idst[i], sum_pe + static_cast<int64_t>(i) * sz);
    PE_EQUAL(idst[kCount - 1], sum_pe + static_cast<int64_t>(kCount - 1) * sz);
    coll::reduce(set, s.sync, idst.data(), isrc, kCount, coll::ReduceOp::kMax, "test");
    PE_EQUAL(idst[5], max_pe + 5);
    coll::reduce(set, s.sync, idst.data(), isrc, kCount, coll::ReduceOp::kMin, "test");
    PE_EQUAL(idst[5], min_pe + 5);
    for (size_t i = 0; i < kCount; ++i) isrc[i] = my_pe() + 1;
    coll::reduce(set, s.sync, isrc, isrc, kCount, coll::ReduceOp::kXor, "test");  // in place
    PE_EQUAL(isrc[0], xor_pe);
    PE_EQUAL(isrc[kCount - 1], xor_pe);
    for (size_t i = 0; i < kCount; ++i) dsrc[i] = 0.5 * (my_pe() + 1);
    coll::reduce(set, s.sync, ddst.data(), dsrc, kCount, coll::ReduceOp::kSum, "test");
    PE_EQUAL(ddst[kCount - 1], 0.5 * (sum_pe + sz));
    for (int i = 0; i < 4; ++i) csrc[i] = std::complex<float>(0, 1);  // i^n
    std::complex<float> cdst[4];
    coll::reduce(set, s.sync, cdst, csrc, 4, coll::ReduceOp::kProd, "test");
    std::complex<float> expect(1, 0);
    for (int r = 0; r < sz; ++r) expect *= std::complex<float>(0, 1);
    PE_EQUAL(cdst[3].real(), expect.real());
    PE_EQUAL(cdst[3].imag(), expect.imag());
    coll::barrier(set, s.sync, false, "test");
  });
  sym_free(csrc);
  sym_free(dsrc);
  sym_free(isrc);
}
