// The C++ overloads of shmem.h: every generic family (RMA, signals, standard/extended/bitwise
// atomics with their fetching _nbi forms, point-to-point synchronisation, team collectives and
// reductions), plain and ctx forms, each checking values. Built by Bazel here and by oshc++ in
// tools/oshcc:oshcc_test.
#include <shmem.h>

#include <cstdio>
#include <vector>

#include "check.h"

namespace {
template <typename T>
T* sym(size_t count) {
  return static_cast<T*>(shmem_calloc(count, sizeof(T)));
}
}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
  shmem_pcontrol(1, "phase");  // void shmem_pcontrol(const int level, ...)

  // ---- RMA: put/get (plain and ctx), p/g, nbi, strided ----
  double* dd = sym<double>(8);
  short* ss = sym<short>(8);
  int* ii = sym<int>(4);
  long* ll = sym<long>(8);
  double dsrc[8];
  short ssrc[4];
  int isrc[4];
  long lsrc[4];
  for (int i = 0; i < 8; ++i) dsrc[i] = me * 10 + i;
  for (int i = 0; i < 4; ++i) {
    ssrc[i] = static_cast<short>(me * 3 + i);
    isrc[i] = me * 7 + i;
    lsrc[i] = me * 100L + i;
  }
  shmem_barrier_all();
  shmem_put(dd, dsrc, 8, right);
  shmem_put(ctx, ss, ssrc, 4, right);
  shmem_p(ss + 4, static_cast<short>(1000 + me), right);
  shmem_p(ctx, ss + 5, static_cast<short>(2000 + me), right);
  shmem_put_nbi(ii, isrc, 2, right);
  shmem_put_nbi(ctx, ii + 2, isrc + 2, 2, right);
  shmem_iput(ll, lsrc, 2, 1, 4, right);  // ll[0, 2, 4, 6]
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  for (int i = 0; i < 8; ++i) CHECK(dd[i] == left * 10 + i, "dd[%d] = %g", i, dd[i]);
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ(ss[i], left * 3 + i);
    CHECK_EQ(ii[i], left * 7 + i);
    CHECK_EQ(ll[2 * i], left * 100L + i);
  }
  CHECK_EQ(ss[4], 1000 + left);
  CHECK_EQ(ss[5], 2000 + left);
  CHECK(shmem_g(dd + 3, right) == me * 10 + 3, "g %g", shmem_g(dd + 3, right));
  CHECK(shmem_g(ctx, dd + 4, right) == me * 10 + 4, "ctx g %g", shmem_g(ctx, dd + 4, right));
  double dback[8] = {};
  shmem_get(dback, dd, 8, right);
  for (int i = 0; i < 8; ++i) CHECK(dback[i] == dsrc[i], "get dback[%d] = %g", i, dback[i]);
  short sback[4] = {};
  shmem_get(ctx, sback, ss, 4, right);
  int iback[4] = {};
  shmem_get_nbi(iback, ii, 2, right);
  shmem_get_nbi(ctx, iback + 2, ii + 2, 2, right);
  long lback[4] = {}, lback2[4] = {};
  shmem_iget(lback, ll, 1, 2, 4, right);
  shmem_iget(ctx, lback2, ll, 1, 2, 4, right);
  shmem_quiet();
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ(sback[i], ssrc[i]);
    CHECK_EQ(iback[i], isrc[i]);
    CHECK_EQ(lback[i], lsrc[i]);
    CHECK_EQ(lback2[i], lsrc[i]);
  }

  // ---- blocked strided (1.6): two blocks of 2 from lsrc[0,1] and lsrc[2,3] ----
  long* lb = sym<long>(8);
  for (int i = 0; i < 8; ++i) lb[i] = -1;
  shmem_barrier_all();
  shmem_ibput(lb, lsrc, 4, 2, 2, 2, right);  // lb[0, 1, 4, 5]
  shmem_ibput(ctx, lb + 2, lsrc, 4, 2, 1, 2, right);  // lb[2, 6]
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  const long lb_want[8] = {left * 100L, left * 100L + 1, left * 100L, -1, left * 100L + 2, left * 100L + 3, left * 100L + 2, -1};
  for (int i = 0; i < 8; ++i) CHECK(lb[i] == lb_want[i], "ibput lb[%d] = %ld, expected %ld", i, lb[i], lb_want[i]);
  long lbback[4] = {}, lbback2[4] = {};
  shmem_ibget(lbback, lb, 2, 4, 2, 2, right);  // right's lb[0, 1, 4, 5] = my lsrc
  shmem_ibget(ctx, lbback2, lb, 2, 4, 2, 2, right);
  for (int i = 0; i < 4; ++i) {
    CHECK_EQ(lbback[i], lsrc[i]);
    CHECK_EQ(lbback2[i], lsrc[i]);
  }

  // ---- signals ----
  uint64_t* sig = sym<uint64_t>(1);
  float* ff = sym<float>(2);
  float fsrc[2] = {me + 0.5f, me + 1.5f};
  shmem_barrier_all();
  shmem_put_signal(ff, fsrc, 2, sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
  CHECK(ff[0] == left + 0.5f && ff[1] == left + 1.5f, "%g %g", ff[0], ff[1]);
  shmem_barrier_all();
  shmem_put_signal_nbi(ctx, ff, fsrc, 1, sig, 5, SHMEM_SIGNAL_SET, right);
  shmem_ctx_quiet(ctx);
  shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 5);
  shmem_barrier_all();
  shmem_put_signal(ctx, ff + 1, fsrc, 1, sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_put_signal_nbi(ff, fsrc, 1, sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_quiet();
  shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 7);

  // ---- standard atomics: every PE on PE 0 ----
  int* ai = sym<int>(1);
  unsigned long long* au = sym<unsigned long long>(1);
  shmem_barrier_all();
  shmem_atomic_inc(ai, 0);
  shmem_atomic_inc(ctx, ai, 0);
  shmem_atomic_add(ai, 2, 0);
  shmem_atomic_add(ctx, ai, 3, 0);
  int before = shmem_atomic_fetch_add(ai, 1, 0);
  CHECK(before >= 0 && before < 11 * n, "fetch_add %d", before);
  before = shmem_atomic_fetch_add(ctx, ai, 1, 0);
  CHECK(before >= 0 && before < 11 * n, "ctx fetch_add %d", before);
  before = shmem_atomic_fetch_inc(ai, 0) + shmem_atomic_fetch_inc(ctx, ai, 0);
  CHECK(before >= 0, "fetch_inc %d", before);
  unsigned long long u1 = 99, u2 = 99, u3 = 99, u4 = 99;
  shmem_atomic_fetch_inc_nbi(&u1, au, 0);
  shmem_atomic_fetch_inc_nbi(ctx, &u2, au, 0);
  shmem_atomic_fetch_add_nbi(&u3, au, 10ULL, 0);
  shmem_atomic_fetch_add_nbi(ctx, &u4, au, 10ULL, 0);
  shmem_quiet();
  CHECK(u1 < 22ULL * n && u2 < 22ULL * n && u3 < 22ULL * n && u4 < 22ULL * n, "%llu %llu %llu %llu", u1, u2, u3, u4);
  shmem_barrier_all();
  CHECK_EQ(shmem_atomic_fetch(ai, 0), 11 * n);
  CHECK_EQ(shmem_atomic_fetch(ctx, au, 0), 22ULL * n);

  // compare_swap (+ nbi) on the right neighbour's word, which only this PE updates
  long long* own = sym<long long>(1);
  shmem_barrier_all();
  CHECK_EQ(shmem_atomic_compare_swap(own, 0LL, 7LL, right), 0);
  CHECK_EQ(shmem_atomic_compare_swap(ctx, own, 7LL, 8LL, right), 7);
  long long c1 = -1, c2 = -1;
  shmem_atomic_compare_swap_nbi(&c1, own, 8LL, 9LL, right);
  shmem_quiet();
  shmem_atomic_compare_swap_nbi(ctx, &c2, own, 9LL, 10LL, right);
  shmem_ctx_quiet(ctx);
  CHECK_EQ(c1, 8);
  CHECK_EQ(c2, 9);

  // ---- extended atomics: fetch/set/swap (+ nbi) on double and long ----
  double* ad = sym<double>(1);
  long* al = sym<long>(1);
  shmem_barrier_all();
  shmem_atomic_set(ad, 2.5, right);
  shmem_atomic_set(ctx, al, 40L + me, right);
  shmem_quiet();
  shmem_barrier_all();
  CHECK(*ad == 2.5, "%g", *ad);
  CHECK_EQ(*al, 40L + left);
  shmem_barrier_all();
  CHECK(shmem_atomic_fetch(ad, right) == 2.5, "fetch %g", shmem_atomic_fetch(ad, right));
  CHECK(shmem_atomic_swap(ad, 3.5, right) == 2.5, "swap");
  CHECK(shmem_atomic_swap(ctx, ad, 4.5, right) == 3.5, "ctx swap");
  double e1 = 0, e2 = 0, e3 = 0;
  shmem_atomic_fetch_nbi(&e1, ad, right);
  shmem_quiet();
  shmem_atomic_swap_nbi(&e2, ad, 5.5, right);
  shmem_quiet();
  shmem_atomic_swap_nbi(ctx, &e3, ad, 6.5, right);
  long l1 = 0;
  shmem_atomic_fetch_nbi(ctx, &l1, al, right);
  shmem_ctx_quiet(ctx);
  CHECK(e1 == 4.5 && e2 == 4.5 && e3 == 5.5, "%g %g %g", e1, e2, e3);
  CHECK_EQ(l1, 40L + me);

  // ---- bitwise atomics on PE 0 ----
  unsigned int* bits = sym<unsigned int>(1);
  unsigned long* ub = sym<unsigned long>(1);
  shmem_barrier_all();
  shmem_atomic_or(bits, 1u << (me % 32), 0);
  shmem_atomic_or(ctx, ub, 1ul << (me % 64), 0);
  shmem_atomic_xor(bits, 0u, 0);
  shmem_atomic_xor(ctx, ub, 0ul, 0);
  shmem_atomic_and(bits, ~0u, 0);
  shmem_atomic_and(ctx, ub, ~0ul, 0);
  (void)shmem_atomic_fetch_or(bits, 0u, 0);
  (void)shmem_atomic_fetch_or(ctx, ub, 0ul, 0);
  shmem_quiet();
  shmem_barrier_all();
  unsigned int mask = 0;
  for (int p = 0; p < n; ++p) mask |= 1u << (p % 32);
  if (me == 0) {
    CHECK_EQ(shmem_atomic_fetch_and(bits, ~0u, 0), mask);
    CHECK_EQ(shmem_atomic_fetch_and(ctx, ub, ~0ul, 0), mask);
    CHECK_EQ(shmem_atomic_fetch_xor(bits, 1u, 0), mask);
    CHECK_EQ(shmem_atomic_fetch_xor(ctx, bits, 1u, 0), mask ^ 1u);
    unsigned int b1 = 0, b2 = 0, b3 = 0;
    unsigned long b4 = 0, b5 = 0, b6 = 0;
    shmem_atomic_fetch_and_nbi(&b1, bits, ~0u, 0);
    shmem_quiet();
    shmem_atomic_fetch_or_nbi(&b2, bits, 1u << 31, 0);
    shmem_quiet();
    shmem_atomic_fetch_xor_nbi(&b3, bits, 1u << 31, 0);
    shmem_atomic_fetch_and_nbi(ctx, &b4, ub, ~0ul, 0);
    shmem_ctx_quiet(ctx);
    shmem_atomic_fetch_or_nbi(ctx, &b5, ub, 1ul << 63, 0);
    shmem_ctx_quiet(ctx);
    shmem_atomic_fetch_xor_nbi(ctx, &b6, ub, 1ul << 63, 0);
    shmem_quiet();
    CHECK_EQ(b1, mask);
    CHECK_EQ(b2, mask);
    CHECK_EQ(b3, mask | (1u << 31));
    CHECK_EQ(b4, mask);
    CHECK_EQ(b5, mask);
    CHECK(b6 == (mask | (1ul << 63)), "%lx", b6);
    CHECK_EQ(shmem_atomic_fetch(bits, 0), mask);
  }

  // ---- point-to-point synchronisation ----
  int* flags = sym<int>(static_cast<size_t>(n));
  short* sw = sym<short>(1);
  long* lw = sym<long>(1);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) shmem_p(&flags[me], 1, p);
  shmem_p(sw, static_cast<short>(3), right);
  shmem_p(lw, 4L, right);
  shmem_quiet();
  shmem_wait_until(sw, SHMEM_CMP_EQ, static_cast<short>(3));
  shmem_wait_until(lw, SHMEM_CMP_GE, 4L);  // the C routine of the long overload
  CHECK_EQ(shmem_test(sw, SHMEM_CMP_EQ, static_cast<short>(3)), 1);
  CHECK_EQ(shmem_test(lw, SHMEM_CMP_NE, 4L), 0);
  const size_t un = static_cast<size_t>(n);
  std::vector<int> ones(un, 1);
  std::vector<size_t> idx(un);
  shmem_wait_until_all(flags, un, nullptr, SHMEM_CMP_EQ, 1);
  shmem_wait_until_all_vector(flags, un, nullptr, SHMEM_CMP_EQ, ones.data());
  CHECK(shmem_wait_until_any(flags, un, nullptr, SHMEM_CMP_EQ, 1) < un, "any");
  CHECK(shmem_wait_until_any_vector(flags, un, nullptr, SHMEM_CMP_EQ, ones.data()) < un, "any vector");
  CHECK_EQ(shmem_wait_until_some(flags, un, idx.data(), nullptr, SHMEM_CMP_EQ, 1), un);
  CHECK_EQ(shmem_wait_until_some_vector(flags, un, idx.data(), nullptr, SHMEM_CMP_EQ, ones.data()), un);
  CHECK_EQ(shmem_test_all(flags, un, nullptr, SHMEM_CMP_EQ, 1), 1);
  CHECK_EQ(shmem_test_all_vector(flags, un, nullptr, SHMEM_CMP_EQ, ones.data()), 1);
  CHECK_EQ(shmem_test_any(flags, un, nullptr, SHMEM_CMP_EQ, 2), SIZE_MAX);
  CHECK(shmem_test_any_vector(flags, un, nullptr, SHMEM_CMP_EQ, ones.data()) < un, "test any vector");
  CHECK_EQ(shmem_test_some(flags, un, idx.data(), nullptr, SHMEM_CMP_NE, 1), 0);
  CHECK_EQ(shmem_test_some_vector(flags, un, idx.data(), nullptr, SHMEM_CMP_EQ, ones.data()), un);

  // ---- team collectives ----
  long* bsrc = sym<long>(4);
  long* bdst = sym<long>(4);
  int* one = sym<int>(1);
  int* all = sym<int>(static_cast<size_t>(n));
  int* all2 = sym<int>(static_cast<size_t>(n));
  double* a2a_src = sym<double>(static_cast<size_t>(n));
  double* a2a_dst = sym<double>(static_cast<size_t>(n));
  double* a2as_dst = sym<double>(static_cast<size_t>(n));
  for (int i = 0; i < 4; ++i) bsrc[i] = me * 1000L + i;
  *one = me * 3;
  for (int j = 0; j < n; ++j) a2a_src[j] = me * 100.0 + j;
  shmem_barrier_all();
  CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, 4, n - 1), 0);
  for (int i = 0; i < 4; ++i) CHECK_EQ(bdst[i], (n - 1) * 1000L + i);
  CHECK_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, all, one, 1), 0);
  CHECK_EQ(shmem_collect(SHMEM_TEAM_WORLD, all2, one, 1), 0);
  for (int p = 0; p < n; ++p) {
    CHECK_EQ(all[p], p * 3);
    CHECK_EQ(all2[p], p * 3);
  }
  CHECK_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, 1), 0);
  CHECK_EQ(shmem_alltoalls(SHMEM_TEAM_WORLD, a2as_dst, a2a_src, 1, 1, 1), 0);
  for (int p = 0; p < n; ++p) {
    CHECK(a2a_dst[p] == p * 100.0 + me, "alltoall [%d] %g", p, a2a_dst[p]);
    CHECK(a2as_dst[p] == p * 100.0 + me, "alltoalls [%d] %g", p, a2as_dst[p]);
  }

  // ---- reductions: arithmetic, min/max, bitwise ----
  double* rd = sym<double>(2);
  int* ri = sym<int>(1);
  long* rl = sym<long>(1);
  unsigned char* rb = sym<unsigned char>(1);
  unsigned int* ru = sym<unsigned int>(1);
  double* dres = sym<double>(2);  // reduction destinations are symmetric too
  int& ires = *sym<int>(1);
  long& lres = *sym<long>(1);
  unsigned char& bres = *sym<unsigned char>(1);
  unsigned int& ures = *sym<unsigned int>(1);
  rd[0] = me;
  rd[1] = 0.5;
  *ri = me + 1;
  *rl = 5L * me - 3;
  *rb = static_cast<unsigned char>(1u << (me % 8));
  *ru = 1u << (me % 32);
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dres, rd, 2), 0);
  CHECK(dres[0] == n * (n - 1) / 2.0 && dres[1] == 0.5 * n, "sum %g %g", dres[0], dres[1]);
  shmem_prod_reduce(SHMEM_TEAM_WORLD, &ires, ri, 1);
  int fact = 1;
  for (int p = 1; p <= n; ++p) fact *= p;
  CHECK_EQ(ires, fact);
  shmem_max_reduce(SHMEM_TEAM_WORLD, &lres, rl, 1);
  CHECK_EQ(lres, 5L * (n - 1) - 3);
  shmem_min_reduce(SHMEM_TEAM_WORLD, &lres, rl, 1);
  CHECK_EQ(lres, -3);
  unsigned char bmask = 0;
  for (int p = 0; p < n; ++p) bmask = static_cast<unsigned char>(bmask | (1u << (p % 8)));
  shmem_or_reduce(SHMEM_TEAM_WORLD, &bres, rb, 1);
  CHECK_EQ(bres, bmask);
  shmem_and_reduce(SHMEM_TEAM_WORLD, &ures, ru, 1);
  CHECK_EQ(ures, 0u);
  shmem_xor_reduce(SHMEM_TEAM_WORLD, &ures, ru, 1);
  CHECK_EQ(ures, mask);

  // 1.6 scans; bitwise atomics and reductions on the signed fixed-width types; shmem_sync(team)
  CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, &ires, ri, 1), 0);
  CHECK_EQ(ires, (me + 1) * (me + 2) / 2);
  CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, &lres, rl, 1), 0);
  CHECK_EQ(lres, 5L * me * (me - 1) / 2 - 3L * me);
  int32_t* w32 = sym<int32_t>(1);
  int64_t* w64 = sym<int64_t>(1);
  int8_t* r8 = sym<int8_t>(2);
  shmem_barrier_all();
  shmem_atomic_or(w32, static_cast<int32_t>(1) << (me % 31), 0);
  shmem_atomic_xor(ctx, w64, static_cast<int64_t>(1) << (me % 63), 0);
  shmem_quiet();
  shmem_ctx_quiet(ctx);
  r8[0] = static_cast<int8_t>(1 << (me % 7));
  CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
  shmem_barrier_all();
  CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, r8 + 1, r8, 1), 0);
  int8_t any8 = 0;
  for (int p = 0; p < n; ++p) any8 = static_cast<int8_t>(any8 | (1 << (p % 7)));
  CHECK_EQ(r8[1], any8);
  if (me == 0) {
    int64_t parity = 0;
    for (int p = 0; p < n; ++p) parity ^= static_cast<int64_t>(1) << (p % 63);
    CHECK_EQ(shmem_atomic_fetch_and(w32, static_cast<int32_t>(-1), 0), static_cast<int32_t>(mask));
    CHECK_EQ(shmem_atomic_fetch_or(ctx, w64, static_cast<int64_t>(0), 0), parity);
  }
  shmem_barrier_all();

  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  if (me == 0) std::printf("cxx_generics: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
