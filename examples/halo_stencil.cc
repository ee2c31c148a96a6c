// The main example: a 1-D heat-diffusion stencil with halo exchange, then a distributed
// histogram of the result, on gasket's core API.
//
// Each PE owns a block of cells plus one halo cell on each side, all in the symmetric heap.
// Every step a PE puts its edge cells into its neighbours' halos (put), signals them with an
// atomic add on a per-step counter, waits for its own two halos (wait_until), and updates its
// block. At the end each PE bins its cells into a histogram owned by PE 0 with atomic_fetch_add,
// and PE 0 gathers every block with get and checks both against a serial computation.
//   gasketrun -n 4 halo_stencil [cells] [steps]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/gasket.h"

namespace {

constexpr int kBins = 10;

double initial_temperature(long cell, long cells) {
  // A hot plate in the middle third, cold elsewhere.
  return (cell >= cells / 3 && cell < 2 * cells / 3) ? 100.0 : 0.0;
}

double step_cell(double left, double mid, double right) { return mid + 0.25 * (left - 2 * mid + right); }

int bin_of(double t) {
  int b = static_cast<int>(t / 100.0 * kBins);
  return b < 0 ? 0 : (b >= kBins ? kBins - 1 : b);
}

// The same computation on one process, for the correctness check.
std::vector<double> serial(long cells, int steps) {
  std::vector<double> u(static_cast<size_t>(cells)), next(u.size());
  for (long i = 0; i < cells; ++i) u[static_cast<size_t>(i)] = initial_temperature(i, cells);
  for (int s = 0; s < steps; ++s) {
    for (long i = 0; i < cells; ++i) {
      double l = i > 0 ? u[static_cast<size_t>(i - 1)] : 0.0;
      double r = i + 1 < cells ? u[static_cast<size_t>(i + 1)] : 0.0;
      next[static_cast<size_t>(i)] = step_cell(l, u[static_cast<size_t>(i)], r);
    }
    u.swap(next);
  }
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  long cells = argc > 1 ? std::atol(argv[1]) : 4000;
  int steps = argc > 2 ? std::atoi(argv[2]) : 500;
  gasket::Status st = gasket::init();
  if (!st.is_ok()) {
    std::fprintf(stderr, "init failed: %s\n", st.message().c_str());
    return 1;
  }
  const int me = gasket::my_pe(), n = gasket::n_pes();
  if (cells % n != 0 || cells < n) {
    if (me == 0) std::fprintf(stderr, "cells (%ld) must be a positive multiple of the PE count (%d)\n", cells, n);
    gasket::abort_job(2, "bad arguments");
  }
  const long block = cells / n, first = me * block;
  const int left = me - 1, right = me + 1;

  // u[0] and u[block+1] are halos; two buffers alternate between steps.
  auto* u = static_cast<double*>(gasket::sym_calloc(2 * static_cast<size_t>(block + 2), sizeof(double)));
  // arrived[0] counts halos received from the left neighbour, arrived[1] from the right.
  auto* arrived = static_cast<long*>(gasket::sym_calloc(2, sizeof(long)));
  auto* histogram = static_cast<long*>(gasket::sym_calloc(kBins, sizeof(long)));
  if (u == nullptr || arrived == nullptr || histogram == nullptr) gasket::abort_job(1, "heap too small");
  for (long i = 0; i < block; ++i) u[i + 1] = initial_temperature(first + i, cells);
  gasket::barrier_all();

  for (int s = 0; s < steps; ++s) {
    double* cur = u + (s % 2) * (block + 2);
    double* nxt = u + ((s + 1) % 2) * (block + 2);
    // Halos of this step go into the neighbours' current buffers; the fence makes each halo
    // land before the signal that announces it.
    if (left >= 0) gasket::put(&cur[block + 1], &cur[1], sizeof(double), left);
    if (right < n) gasket::put(&cur[0], &cur[block], sizeof(double), right);
    gasket::fence();
    if (left >= 0) gasket::atomic_add(&arrived[1], 1L, left);
    if (right < n) gasket::atomic_add(&arrived[0], 1L, right);
    if (left >= 0) gasket::wait_until(&arrived[0], gasket::Cmp::kGe, long{s + 1});
    if (right < n) gasket::wait_until(&arrived[1], gasket::Cmp::kGe, long{s + 1});
    for (long i = 1; i <= block; ++i) nxt[i] = step_cell(cur[i - 1], cur[i], cur[i + 1]);
    // Halos are never written here: a neighbour may already have put the next step's halo
    // into `nxt`. The outermost halos stay 0 (cold boundary) from sym_calloc.
    // A neighbour can write this buffer's halos again (step s+2) only after it has our signal of
    // step s+1, which we send after finishing this step: no halo is overwritten before use.
  }
  double* result = u + (steps % 2) * (block + 2);

  for (long i = 1; i <= block; ++i) gasket::atomic_fetch_add(&histogram[bin_of(result[i])], 1L, 0);
  gasket::barrier_all();

  int status = 0;
  if (me == 0) {
    std::vector<double> all(static_cast<size_t>(cells));
    for (int pe = 0; pe < n; ++pe) {
      gasket::get(&all[static_cast<size_t>(pe * block)], result + 1, static_cast<size_t>(block) * sizeof(double), pe);
    }
    std::vector<double> want = serial(cells, steps);
    long mismatches = 0, binned = 0;
    double total = 0;
    long want_hist[kBins] = {};
    for (long i = 0; i < cells; ++i) {
      if (all[static_cast<size_t>(i)] != want[static_cast<size_t>(i)]) ++mismatches;
      total += all[static_cast<size_t>(i)];
      ++want_hist[bin_of(want[static_cast<size_t>(i)])];
    }
    std::printf("halo_stencil: %d PEs, %ld cells, %d steps; heat left in the rod %.6f\n", n, cells, steps, total);
    std::printf("temperature histogram (bins of 10 degrees):\n");
    for (int b = 0; b < kBins; ++b) {
      std::printf("  %3d-%3d  %6ld %s\n", b * 10, b * 10 + 10, histogram[b],
                  histogram[b] == want_hist[b] ? "" : "  <-- differs from serial");
      binned += histogram[b];
      if (histogram[b] != want_hist[b]) ++mismatches;
    }
    if (mismatches == 0 && binned == cells) {
      std::printf("check: PASSED (every cell and every bin equals the serial computation)\n");
    } else {
      std::printf("check: FAILED (%ld mismatches, %ld cells binned of %ld)\n", mismatches, binned, cells);
      status = 1;
    }
  }
  gasket::barrier_all();
  gasket::sym_free(histogram);
  gasket::sym_free(arrived);
  gasket::sym_free(u);
  (void)gasket::finalize();
  return status;
}
