// Multi-PE test of the same-node cell protocol (cells.h): many consecutive collectives of every kind
// on overlapping sets in one interleaved order (so the parity cells of each slot are reused
// hundreds of times while other sets run), checked against sequential references. Runs on the
// local path, where every PE is mapped (the test requires the cells to apply).
#define BOOST_TEST_MODULE cells
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "core/coll/cells.h"
#include "tests/core/fixture.h"

using namespace gasket;

namespace {


// x -> a*x + b (mod 2^64); combining composes maps, which is not commutative: the rank order shows.
struct Affine {
  uint64_t a, b;
};
// acc = data o acc (data is the lower rank's): x -> data(acc(x)).
void compose(void*, const void* data_v, void* acc_v, size_t count) {
  auto* acc = static_cast<Affine*>(acc_v);
  for (size_t i = 0; i < count; ++i) {
    Affine d;
    std::memcpy(&d, static_cast<const char*>(data_v) + i * sizeof(Affine), sizeof(Affine));
    acc[i] = Affine{d.a * acc[i].a, d.a * acc[i].b + d.b};
  }
}
Affine contribution(int rank, int iter, size_t i) {
  return Affine{uint64_t(2 * rank + 3 + iter) | 1, uint64_t(rank) * 1000 + uint64_t(iter) + i};
}

// The sets: world, even PEs (strided), all PEs in reverse (listed), the lower half; each with its
// own slot and tag and collective counter.
struct TestSet {
  coll::PeSet set;
  coll::CellSlot slot;
  uint64_t seq = 0;
  uint64_t all_entered = 0;
  std::vector<coll::CellArea::Cell*> table;
};

std::vector<TestSet> make_sets(const coll::CellArea& area) {
  int n = n_pes();
  std::vector<int> reverse;
  for (int pe = n - 1; pe >= 0; --pe) reverse.push_back(pe);
  std::vector<TestSet> sets(4);
  sets[0].set = coll::PeSet::strided(0, 1, n, "test");
  sets[1].set = coll::PeSet::strided(0, 2, (n + 1) / 2, "test");
  sets[2].set = coll::PeSet::of_list(reverse, "test");
  sets[3].set = coll::PeSet::strided(0, 1, (n + 1) / 2, "test");
  for (size_t k = 0; k < sets.size(); ++k) {
    sets[k].slot = coll::CellSlot{&area, static_cast<int>(k) + 1, static_cast<uint32_t>(k) + 7, nullptr};
  }
  return sets;
}

}  // namespace

BOOST_AUTO_TEST_CASE(cells_apply_on_mapped_sets_only) {
  coll::CellArea area;
  BOOST_REQUIRE(area.create("test").is_ok());
  coll::PeSet world = coll::PeSet::strided(0, 1, n_pes(), "test");
  BOOST_TEST(coll::cells_apply(area, 1, world, coll::CellArea::kCellBytes));
  BOOST_TEST(!coll::cells_apply(area, 1, world, coll::CellArea::kCellBytes + 1));
  BOOST_TEST(!coll::cells_apply(area, -1, world, 0));
  coll::CellArea none;
  BOOST_TEST(!coll::cells_apply(none, 1, world, 0));
  barrier_all();
  area.destroy("test");
}

// A barrier with a releaser: a member that arrives late finds the releaser's flag of that barrier
// not yet raised (it publishes only after seeing every arrival), and after the barrier it is
// raised. Released by set rank 0 (the last PE: the set lists the PEs in reverse, so the set's rank,
// not the PE number, is what counts) and by the last rank. The late member sleeps first so that
// the releaser has surely arrived: a releaser publishing on arrival is caught.
BOOST_AUTO_TEST_CASE(barrier_released_after_every_arrival) {
  coll::CellArea area;
  BOOST_REQUIRE(area.create("test").is_ok());
  std::vector<int> reverse;
  for (int pe = n_pes() - 1; pe >= 0; --pe) reverse.push_back(pe);
  coll::PeSet set = coll::PeSet::of_list(reverse, "test");
  uint64_t seq = 0;
  const uint32_t tag = 5;
  std::vector<coll::CellArea::Cell*> table = coll::cell_table(area, 3, set);
  coll::CellSlot slot{&area, 3, tag, &seq, nullptr, table.data()};
  coll::CellWait wait = coll::CellWait::standard(false);
  const int n = set.size(), me = set.my_rank();
  int early_flags = 0, missing_flags = 0;
  for (int round = 0; round < 24; ++round) {
    const int releaser = round % 2 == 0 ? 0 : n - 1, late = (releaser + 1 + round % n) % n;
    const uint64_t next = seq + 1, flag = (uint64_t{tag} << 32) | next;
    const coll::CellArea::Cell* root = area.cell(set.pe(releaser), slot.slot, static_cast<int>(next & 1));
    if (me == late && late != releaser) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (__atomic_load_n(&root->flag, __ATOMIC_ACQUIRE) == flag) ++early_flags;
    }
    coll::cell_barrier(set, slot, wait, releaser);
    if (__atomic_load_n(&root->flag, __ATOMIC_ACQUIRE) != flag) ++missing_flags;
  }
  PE_EQUAL(early_flags, 0);
  PE_EQUAL(missing_flags, 0);
  barrier_all();
  area.destroy("test");
}

namespace {

// A receiver still copying a broadcast's data keeps the cell it reads: the root's next two
// broadcasts may not wait for anybody, but the second reuses that cell's parity and must first see
// every member enter the one before (step 1). Checked after a symmetric barrier (after which the
// owner's state lets the first broadcast skip step 1) with and without the owner's state; the slow
// receiver sleeps between seeing the root's flag and reading the data.
void slow_reader_keeps_its_cell(bool kept_by_owner) {
  coll::CellArea area;
  BOOST_REQUIRE(area.create("test").is_ok());
  coll::PeSet set = coll::PeSet::strided(0, 1, n_pes(), "test");
  uint64_t seq = 0, all_entered = 0;
  std::vector<coll::CellArea::Cell*> table = coll::cell_table(area, 2, set);
  coll::CellSlot slot{&area, 2, 9, &seq, kept_by_owner ? &all_entered : nullptr, table.data()};
  coll::CellWait wait = coll::CellWait::standard(false);
  const int n = set.size(), me = set.my_rank(), root = 0, slow = n - 1;
  int wrong = 0;
  for (int round = 0; round < 6; ++round) {
    coll::cell_barrier(set, slot, wait, -1);
    for (int k = 0; k < 3; ++k) {
      unsigned char data[64];
      std::memset(data, me == root ? 16 * round + k + 1 : 0, sizeof data);
      if (me == slow && k == 0 && slow != root) {
        coll::CellRound bcast(set, slot, wait, /*writes_data=*/false);
        bcast.publish(nullptr, 0);
        bcast.wait_one(root);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::memcpy(data, bcast.cell(root)->data, sizeof data);
      } else {
        coll::cell_broadcast(set, slot, wait, data, sizeof data, root);
      }
      for (unsigned char b : data) wrong += b != 16 * round + k + 1;
    }
  }
  PE_EQUAL(wrong, 0);
  barrier_all();
  area.destroy("test");
}

}  // namespace

BOOST_AUTO_TEST_CASE(slow_reader_keeps_its_cell_without_the_owners_state) { slow_reader_keeps_its_cell(false); }

BOOST_AUTO_TEST_CASE(slow_reader_keeps_its_cell_with_the_owners_state) { slow_reader_keeps_its_cell(true); }

namespace {

// `kept_by_owner`: the sets keep CellSlot's optional state (the last collective that saw every
// member, which lets step 1 be skipped), as MPI's communicators and OpenSHMEM's teams do.
void interleaved_collectives(bool kept_by_owner) {
  coll::CellArea area;
  BOOST_REQUIRE(area.create("test").is_ok());
  std::vector<TestSet> sets = make_sets(area);
  for (TestSet& s : sets) {
    s.slot.seq = &s.seq;
    s.table = coll::cell_table(area, s.slot.slot, s.set);
    s.slot.table = s.table.data();
    if (kept_by_owner) s.slot.all_entered = &s.all_entered;
    BOOST_REQUIRE(coll::cells_apply(area, s.slot.slot, s.set, coll::CellArea::kCellBytes));
  }
  coll::CellWait wait = coll::CellWait::standard(false);
  // Each PE's "arrived" words for the barrier check: word k counts set k's barriers passed here.
  auto* arrived = static_cast<uint64_t*>(sym_calloc(sets.size(), sizeof(uint64_t)));
  BOOST_REQUIRE(arrived != nullptr);
  barrier_all();

  constexpr int kIterations = 400;
  int failures = 0;
  for (int iter = 0; iter < kIterations; ++iter) {
    size_t k = static_cast<size_t>(iter * 7 + iter / 5) % sets.size();
    TestSet& s = sets[k];
    int me = s.set.my_rank(), n = s.set.size();
    if (me < 0) continue;
    switch (iter % 5) {
      case 0: {  // barrier (symmetric or released): every member has stored its count before anyone leaves
        uint64_t round = ++arrived[k];
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        coll::cell_barrier(s.set, s.slot, wait, (iter / 5) % (n + 1) - 1);  // symmetric, or released by a rank
        for (int r = 0; r < n; ++r) {
          auto* theirs = static_cast<uint64_t*>(peer_pointer(arrived, s.set.pe(r)));
          uint64_t seen = __atomic_load_n(&theirs[k], __ATOMIC_ACQUIRE);
          if (seen < round) ++failures;
          BOOST_TEST(seen >= round, "PE " << my_pe() << " iter " << iter << ": rank " << r << " at " << seen << " < " << round);
        }
        break;
      }
      case 1: {  // broadcast of a varying length from a varying root
        int root = iter % n;
        size_t bytes = 1 + static_cast<size_t>(iter * 37) % coll::CellArea::kCellBytes;
        std::vector<unsigned char> data(bytes, 0);
        if (me == root)
          for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 13 + iter + root);
        coll::cell_broadcast(s.set, s.slot, wait, data.data(), bytes, root);
        for (size_t i = 0; i < bytes; ++i) {
          if (data[i] != static_cast<unsigned char>(i * 13 + iter + root)) ++failures;
        }
        PE_EQUAL(failures, 0);
        break;
      }
      case 2:
      case 3: {  // non-commutative reduce (to a root) / allreduce, in place on odd iterations
        int root = iter % 5 == 2 ? (iter / 5) % n : -1;
        size_t count = 1 + static_cast<size_t>(iter) % (coll::CellArea::kCellBytes / sizeof(Affine));
        std::vector<Affine> in(count), out(count, Affine{0, 0});
        for (size_t i = 0; i < count; ++i) in[i] = contribution(me, iter, i);
        Affine* dest = iter % 2 == 1 ? in.data() : out.data();
        coll::cell_reduce(s.set, s.slot, wait, in.data(), dest, count, sizeof(Affine), compose, nullptr, root);
        if (root >= 0 && me != root) break;
        for (size_t i = 0; i < count; ++i) {
          Affine ref = contribution(n - 1, iter, i);  // x0 o (x1 o ... o x_{n-1}), folded from the right
          for (int r = n - 2; r >= 0; --r) {
            Affine d = contribution(r, iter, i);
            ref = Affine{d.a * ref.a, d.a * ref.b + d.b};
          }
          if (dest[i].a != ref.a || dest[i].b != ref.b) ++failures;
        }
        PE_EQUAL(failures, 0);
        break;
      }
      case 4: {  // typed sum and max of int64 (the core's combiners)
        size_t count = 1 + static_cast<size_t>(iter * 11) % (coll::CellArea::kCellBytes / sizeof(int64_t));
        std::vector<int64_t> src(count), sum(count), max(count);
        for (size_t i = 0; i < count; ++i) src[i] = static_cast<int64_t>(me * 100 + iter) - static_cast<int64_t>(i);
        coll::cell_reduce(s.set, s.slot, wait, sum.data(), src.data(), count, coll::ReduceOp::kSum, "test");
        coll::cell_reduce(s.set, s.slot, wait, max.data(), src.data(), count, coll::ReduceOp::kMax, "test");
        for (size_t i = 0; i < count; ++i) {
          int64_t want_sum = 0, want_max = INT64_MIN;
          for (int r = 0; r < n; ++r) {
            int64_t v = static_cast<int64_t>(r * 100 + iter) - static_cast<int64_t>(i);
            want_sum += v;
            want_max = v > want_max ? v : want_max;
          }
          if (sum[i] != want_sum || max[i] != want_max) ++failures;
        }
        PE_EQUAL(failures, 0);
        break;
      }
    }
  }
  PE_EQUAL(failures, 0);
  // Every member counted the same collectives of each set.
  barrier_all();
  for (TestSet& s : sets) {
    if (s.set.my_rank() < 0) continue;
    for (int r = 0; r < s.set.size(); ++r) {
      // (the counters live on each PE; equal counts show through the flags' sequence numbers)
      const coll::CellArea::Cell* c = area.cell(s.set.pe(r), s.slot.slot, static_cast<int>(s.seq & 1));
      PE_EQUAL(__atomic_load_n(&c->flag, __ATOMIC_ACQUIRE), (uint64_t{s.slot.tag} << 32) | s.seq);
    }
  }
  barrier_all();
  sym_free(arrived);
  area.destroy("test");
}

}  // namespace

BOOST_AUTO_TEST_CASE(interleaved_collectives_on_overlapping_sets) { interleaved_collectives(false); }

BOOST_AUTO_TEST_CASE(interleaved_collectives_with_the_owners_state) { interleaved_collectives(true); }
