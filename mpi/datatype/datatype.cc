#include "mpi/datatype/datatype.h"

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstring>
#include <functional>

#include "mpi.h"

namespace gasket::mpi::datatype {

namespace {

template <typename A, typename B>
struct Pair {
  A a;
  B b;
};

// A predefined type of `n` elements of `elem` bytes (complex: two), external32 `ext` bytes each.
Datatype basic(const char* name, int64_t elem, int64_t n = 1, int64_t ext = 0, bool sign = false, bool swap = true) {
  Datatype t;
  t.name = name;
  t.size = elem * n;
  t.lb = t.true_lb = 0;
  t.ub = t.true_ub = t.size;
  if (t.size > 0) {
    Block b{0, t.size, static_cast<uint8_t>(elem), static_cast<uint8_t>(ext ? ext : elem), sign, swap};
    t.blocks.push_back(b);
  }
  t.basic_count = t.size > 0 ? 1 : 0;
  t.basic_size = t.size;
  t.predefined = true;
  t.committed = true;
  return t;
}

// A pair type (MPI_DOUBLE_INT, ...): two basic elements at their C struct offsets.
template <typename A, typename B>
Datatype pair(const char* name, bool a_signed, int a_ext) {
  using P = Pair<A, B>;
  const int64_t b_offset = offsetof(P, b);
  Datatype t;
  t.name = name;
  t.size = sizeof(A) + sizeof(B);
  t.lb = t.true_lb = 0;
  t.ub = sizeof(P);
  t.true_ub = b_offset + static_cast<int64_t>(sizeof(B));
  t.blocks.push_back(Block{0, static_cast<int64_t>(sizeof(A)), sizeof(A), static_cast<uint8_t>(a_ext), a_signed, true});
  t.blocks.push_back(Block{b_offset, static_cast<int64_t>(sizeof(B)), sizeof(B), sizeof(B), true, true});
  if (t.blocks[0].offset + t.blocks[0].length == b_offset && t.blocks[0].elem == t.blocks[1].elem) {
    t.blocks[0].length += t.blocks[1].length;
    t.blocks.pop_back();
  }
  t.basic_count = 2;
  t.basic_size = sizeof(A) == sizeof(B) ? sizeof(A) : 0;
  t.predefined = true;
  t.committed = true;
  return t;
}

bool same_kind(const Block& a, const Block& b) {
  return a.elem == b.elem && a.ext == b.ext && a.sign == b.sign && a.swap == b.swap;
}

void append_block(std::vector<Block>* blocks, Block b) {
  if (b.length == 0) return;
  if (!blocks->empty() && blocks->back().offset + blocks->back().length == b.offset && same_kind(blocks->back(), b)) {
    blocks->back().length += b.length;
  } else {
    blocks->push_back(b);
  }
}

// Appends `count` copies of `old` starting at byte `displacement`, and grows the bounds of `out`.
void append_copies(const Datatype& old, int64_t displacement, int64_t count, Datatype* out, bool* first) {
  // Copies back to back make one block: no loop over the count (2^30 elements of a _c
  // constructor took minutes).
  bool back_to_back = old.blocks.size() == 1 && old.blocks[0].length == old.extent();
  if (back_to_back && count > 0) {
    Block b = old.blocks[0];
    b.offset += displacement;
    b.length *= count;
    append_block(&out->blocks, b);
  }
  for (int64_t i = 0; !back_to_back && i < count; ++i) {
    int64_t base = displacement + i * old.extent();
    for (Block b : old.blocks) {
      b.offset += base;
      append_block(&out->blocks, b);
    }
  }
  if (count == 0) return;
  int64_t lo = displacement + old.lb, hi = displacement + (count - 1) * old.extent() + old.ub;
  int64_t tlo = displacement + old.true_lb, thi = displacement + (count - 1) * old.extent() + old.true_ub;
  if (old.extent() < 0) {
    lo = displacement + (count - 1) * old.extent() + old.lb, hi = displacement + old.ub;
    tlo = displacement + (count - 1) * old.extent() + old.true_lb, thi = displacement + old.true_ub;
  }
  if (*first) {
    out->lb = lo, out->ub = hi, out->true_lb = tlo, out->true_ub = thi;
    *first = false;
  } else {
    out->lb = std::min(out->lb, lo), out->ub = std::max(out->ub, hi);
    out->true_lb = std::min(out->true_lb, tlo), out->true_ub = std::max(out->true_ub, thi);
  }
  out->size += count * old.size;
  out->basic_count += count * old.basic_count;
}

Error negative(const char* call, const char* what, int64_t v) {
  return error(MPI_ERR_ARG, "%s: %s %lld is negative", call, what, static_cast<long long>(v));
}

}  // namespace

DatatypeTable::DatatypeTable() {
  types_.resize(GASKET_MPI_N_PREDEFINED_TYPES);
  auto set = [this](int h, Datatype t) {
    t.basic_type = h;
    types_[slot_of(HandleKind::kDatatype, h)] = std::make_unique<Datatype>(std::move(t));
  };
  set(MPI_CHAR, basic("MPI_CHAR", 1, 1, 1, true, false));
  set(MPI_SIGNED_CHAR, basic("MPI_SIGNED_CHAR", 1, 1, 1, true, false));
  set(MPI_UNSIGNED_CHAR, basic("MPI_UNSIGNED_CHAR", 1, 1, 1, false, false));
  set(MPI_BYTE, basic("MPI_BYTE", 1, 1, 1, false, false));
  set(MPI_SHORT, basic("MPI_SHORT", sizeof(short), 1, 2, true));
  set(MPI_UNSIGNED_SHORT, basic("MPI_UNSIGNED_SHORT", sizeof(unsigned short), 1, 2));
  set(MPI_INT, basic("MPI_INT", sizeof(int), 1, 4, true));
  set(MPI_UNSIGNED, basic("MPI_UNSIGNED", sizeof(unsigned), 1, 4));
  set(MPI_LONG, basic("MPI_LONG", sizeof(long), 1, 4, true));  // external32: 4 bytes
  set(MPI_UNSIGNED_LONG, basic("MPI_UNSIGNED_LONG", sizeof(unsigned long), 1, 4));
  set(MPI_LONG_LONG, basic("MPI_LONG_LONG", sizeof(long long), 1, 8, true));
  set(MPI_UNSIGNED_LONG_LONG, basic("MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long), 1, 8));
  set(MPI_FLOAT, basic("MPI_FLOAT", sizeof(float)));
  set(MPI_DOUBLE, basic("MPI_DOUBLE", sizeof(double)));
  set(MPI_LONG_DOUBLE, basic("MPI_LONG_DOUBLE", sizeof(long double)));
  set(MPI_WCHAR, basic("MPI_WCHAR", sizeof(wchar_t), 1, 4, true));
  set(MPI_C_BOOL, basic("MPI_C_BOOL", sizeof(bool), 1, 1, false, false));
  set(MPI_INT8_T, basic("MPI_INT8_T", 1, 1, 1, true, false));
  set(MPI_INT16_T, basic("MPI_INT16_T", 2, 1, 2, true));
  set(MPI_INT32_T, basic("MPI_INT32_T", 4, 1, 4, true));
  set(MPI_INT64_T, basic("MPI_INT64_T", 8, 1, 8, true));
  set(MPI_UINT8_T, basic("MPI_UINT8_T", 1, 1, 1, false, false));
  set(MPI_UINT16_T, basic("MPI_UINT16_T", 2));
  set(MPI_UINT32_T, basic("MPI_UINT32_T", 4));
  set(MPI_UINT64_T, basic("MPI_UINT64_T", 8));
  set(MPI_AINT, basic("MPI_AINT", sizeof(MPI_Aint), 1, 8, true));
  set(MPI_OFFSET, basic("MPI_OFFSET", sizeof(MPI_Offset), 1, 8, true));
  set(MPI_COUNT, basic("MPI_COUNT", sizeof(MPI_Count), 1, 8, true));
  set(MPI_C_FLOAT_COMPLEX, basic("MPI_C_FLOAT_COMPLEX", sizeof(float), 2));
  set(MPI_C_DOUBLE_COMPLEX, basic("MPI_C_DOUBLE_COMPLEX", sizeof(double), 2));
  set(MPI_C_LONG_DOUBLE_COMPLEX, basic("MPI_C_LONG_DOUBLE_COMPLEX", sizeof(long double), 2));
  set(MPI_PACKED, basic("MPI_PACKED", 1, 1, 1, false, false));
  set(MPI_FLOAT_INT, pair<float, int>("MPI_FLOAT_INT", false, 4));
  set(MPI_DOUBLE_INT, pair<double, int>("MPI_DOUBLE_INT", false, 8));
  set(MPI_LONG_INT, pair<long, int>("MPI_LONG_INT", true, 4));
  set(MPI_2INT, pair<int, int>("MPI_2INT", true, 4));
  set(MPI_SHORT_INT, pair<short, int>("MPI_SHORT_INT", true, 2));
  set(MPI_LONG_DOUBLE_INT, pair<long double, int>("MPI_LONG_DOUBLE_INT", false, 16));
  set(MPI_UB, basic("MPI_UB", 0));
  set(MPI_LB, basic("MPI_LB", 0));
  // Fortran named types (gfortran: default INTEGER, REAL and LOGICAL are 4 bytes; REAL*16 is IEEE quad).
  set(MPI_INTEGER, basic("MPI_INTEGER", 4, 1, 4, true));
  set(MPI_REAL, basic("MPI_REAL", 4));
  set(MPI_DOUBLE_PRECISION, basic("MPI_DOUBLE_PRECISION", 8));
  set(MPI_COMPLEX, basic("MPI_COMPLEX", 4, 2));
  set(MPI_DOUBLE_COMPLEX, basic("MPI_DOUBLE_COMPLEX", 8, 2));
  set(MPI_LOGICAL, basic("MPI_LOGICAL", 4, 1, 4, false));
  set(MPI_CHARACTER, basic("MPI_CHARACTER", 1, 1, 1, false, false));
  set(MPI_2REAL, pair<float, float>("MPI_2REAL", false, 4));
  set(MPI_2DOUBLE_PRECISION, pair<double, double>("MPI_2DOUBLE_PRECISION", false, 8));
  set(MPI_2INTEGER, pair<int32_t, int32_t>("MPI_2INTEGER", true, 4));
  set(MPI_INTEGER1, basic("MPI_INTEGER1", 1, 1, 1, true, false));
  set(MPI_INTEGER2, basic("MPI_INTEGER2", 2, 1, 2, true));
  set(MPI_INTEGER4, basic("MPI_INTEGER4", 4, 1, 4, true));
  set(MPI_INTEGER8, basic("MPI_INTEGER8", 8, 1, 8, true));
  set(MPI_INTEGER16, basic("MPI_INTEGER16", 16, 1, 16, true));
  set(MPI_REAL4, basic("MPI_REAL4", 4));
  set(MPI_REAL8, basic("MPI_REAL8", 8));
  set(MPI_REAL16, basic("MPI_REAL16", 16));
  set(MPI_COMPLEX8, basic("MPI_COMPLEX8", 4, 2));
  set(MPI_COMPLEX16, basic("MPI_COMPLEX16", 8, 2));
  set(MPI_COMPLEX32, basic("MPI_COMPLEX32", 16, 2));
  // C++'s bool and std::complex (the layout of C's _Bool and _Complex), Fortran's LOGICAL*n.
  set(MPI_CXX_BOOL, basic("MPI_CXX_BOOL", sizeof(bool), 1, 1, false, false));
  set(MPI_CXX_FLOAT_COMPLEX, basic("MPI_CXX_FLOAT_COMPLEX", sizeof(float), 2));
  set(MPI_CXX_DOUBLE_COMPLEX, basic("MPI_CXX_DOUBLE_COMPLEX", sizeof(double), 2));
  set(MPI_CXX_LONG_DOUBLE_COMPLEX, basic("MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(long double), 2));
  set(MPI_LOGICAL1, basic("MPI_LOGICAL1", 1, 1, 1, false, false));
  set(MPI_LOGICAL2, basic("MPI_LOGICAL2", 2, 1, 2, false));
  set(MPI_LOGICAL4, basic("MPI_LOGICAL4", 4, 1, 4, false));
  set(MPI_LOGICAL8, basic("MPI_LOGICAL8", 8, 1, 8, false));
  set(MPI_LOGICAL16, basic("MPI_LOGICAL16", 16, 1, 16, false));
}

Error DatatypeTable::lookup(int handle, const char* call, const Datatype** type) const {
  if (handle == MPI_DATATYPE_NULL) return error(MPI_ERR_TYPE, "%s: the datatype is MPI_DATATYPE_NULL", call);
  const auto* entry = entry_of(types_, HandleKind::kDatatype, handle);
  if (entry == nullptr || !*entry) {
    return error(MPI_ERR_TYPE, "%s: %d is not a datatype (%s)", call, handle, why_not_found(HandleKind::kDatatype, handle));
  }
  *type = entry->get();
  return Error::ok();
}

Error DatatypeTable::lookup_committed(int handle, const char* call, const Datatype** type) const {
  Error e = lookup(handle, call, type);
  if (!e.is_ok()) return e;
  if (!(*type)->committed) {
    return error(MPI_ERR_TYPE, "%s: datatype %d is not committed (call MPI_Type_commit first)", call, handle);
  }
  return Error::ok();
}

Error DatatypeTable::lookup_data(int handle, int64_t count, const char* call, const Datatype** type) const {
  if (handle == MPI_DATATYPE_NULL && count == 0) {
    static const Datatype kNoData = [] {
      Datatype t;
      t.name = "MPI_DATATYPE_NULL";
      t.predefined = t.committed = true;
      return t;
    }();
    *type = &kNoData;
    return Error::ok();
  }
  return lookup_committed(handle, call, type);
}

int DatatypeTable::parameterized(int base, Combiner combiner, const std::vector<int>& parameters) {
  auto key = std::make_pair(combiner, parameters);
  auto it = parameterized_.find(key);
  if (it != parameterized_.end()) return it->second;
  Datatype t = *types_[slot_of(HandleKind::kDatatype, base)];
  t.attributes.clear();
  t.combiner = combiner;
  t.ints.assign(parameters.begin(), parameters.end());
  int handle = add(std::move(t));
  parameterized_.emplace(std::move(key), handle);
  return handle;
}

int DatatypeTable::add(Datatype type) {
  for (int constituent : type.types) retain(constituent);
  auto p = std::make_unique<Datatype>(std::move(type));
  if (!free_handles_.empty()) {
    int h = free_handles_.back();
    free_handles_.pop_back();
    types_[slot_of(HandleKind::kDatatype, h)] = std::move(p);
    return h;
  }
  types_.push_back(std::move(p));
  return handle_of(HandleKind::kDatatype, types_.size() - 1);
}

void DatatypeTable::retain(int handle) {
  Datatype* t = types_[slot_of(HandleKind::kDatatype, handle)].get();
  if (!t->predefined) ++t->references;
}

void DatatypeTable::release(int handle) {
  Datatype* t = types_[slot_of(HandleKind::kDatatype, handle)].get();
  if (t->predefined || --t->references > 0) return;
  std::vector<int> constituents = t->types;
  retired_.push_back(std::move(types_[slot_of(HandleKind::kDatatype, handle)]));
  free_handles_.push_back(handle);
  for (int constituent : constituents) release(constituent);
}

Error DatatypeTable::free(int* handle, const char* call) {
  const Datatype* t;
  Error e = lookup(*handle, call, &t);
  if (!e.is_ok()) return e;
  if (t->predefined) return error(MPI_ERR_TYPE, "%s: %s is predefined and cannot be freed", call, t->name.c_str());
  release(*handle);
  *handle = MPI_DATATYPE_NULL;
  return Error::ok();
}

// ---- constructors ----

Datatype build(const std::vector<Piece>& pieces, Combiner combiner) {
  Datatype out;
  bool first = true;
  int64_t basic_size = -1;
  int basic_type = -1;
  for (const Piece& p : pieces) {
    append_copies(*p.type, p.displacement, p.count, &out, &first);
    if (p.count == 0 || p.type->size == 0) continue;
    if (basic_size == -1) basic_size = p.type->basic_size, basic_type = p.type->basic_type;
    if (basic_size != p.type->basic_size) basic_size = 0;
    if (basic_type != p.type->basic_type) basic_type = 0;
  }
  out.basic_size = basic_size < 0 ? 0 : basic_size;
  out.basic_type = basic_type < 0 ? 0 : basic_type;
  out.combiner = combiner;
  return out;
}

Error make_contiguous(const Datatype& old, int old_handle, int64_t count, const char* call, Datatype* out) {
  if (count < 0) return error(MPI_ERR_COUNT, "%s: count %lld is negative", call, static_cast<long long>(count));
  *out = build({Piece{0, count, &old}}, Combiner::kContiguous);
  out->ints = {count};
  out->types = {old_handle};
  return Error::ok();
}

Error make_vector(const Datatype& old, int old_handle, int64_t count, int64_t blocklength, int64_t stride,
                  bool stride_in_elements, const char* call, Datatype* out) {
  if (count < 0) return error(MPI_ERR_COUNT, "%s: count %lld is negative", call, static_cast<long long>(count));
  if (blocklength < 0) return negative(call, "blocklength", blocklength);
  std::vector<Piece> pieces;
  int64_t stride_bytes = stride_in_elements ? stride * old.extent() : stride;
  for (int64_t i = 0; i < count; ++i) pieces.push_back(Piece{i * stride_bytes, blocklength, &old});
  *out = build(pieces, stride_in_elements ? Combiner::kVector : Combiner::kHvector);
  out->ints = {count, blocklength};
  if (stride_in_elements) {
    out->ints.push_back(stride);
  } else {
    out->aints = {stride};
  }
  out->types = {old_handle};
  return Error::ok();
}

Error make_indexed(const Datatype& old, int old_handle, const std::vector<int64_t>& blocklengths,
                   const std::vector<int64_t>& displacements, bool bytes, bool block, const char* call,
                   Datatype* out) {
  std::vector<Piece> pieces;
  for (size_t i = 0; i < displacements.size(); ++i) {
    int64_t len = block ? blocklengths[0] : blocklengths[i];
    if (len < 0) return negative(call, "blocklength", len);
    pieces.push_back(Piece{bytes ? displacements[i] : displacements[i] * old.extent(), len, &old});
  }
  Combiner c = block ? (bytes ? Combiner::kHindexedBlock : Combiner::kIndexedBlock)
                     : (bytes ? Combiner::kHindexed : Combiner::kIndexed);
  *out = build(pieces, c);
  out->ints = {static_cast<int64_t>(displacements.size())};
  for (size_t i = 0; i < (block ? 1 : blocklengths.size()); ++i) out->ints.push_back(blocklengths[i]);
  for (int64_t d : displacements) {
    if (bytes) {
      out->aints.push_back(d);
    } else {
      out->ints.push_back(d);
    }
  }
  out->types = {old_handle};
  return Error::ok();
}

Error make_struct(const std::vector<const Datatype*>& types, const std::vector<int>& handles,
                  const std::vector<int64_t>& blocklengths, const std::vector<int64_t>& displacements,
                  const char* call, Datatype* out) {
  std::vector<Piece> pieces;
  bool has_lb = false, has_ub = false;
  int64_t lb = 0, ub = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    if (blocklengths[i] < 0) return negative(call, "blocklength", blocklengths[i]);
    // The MPI-1 markers MPI_LB / MPI_UB set the bounds explicitly.
    if (handles[i] == MPI_LB) {
      lb = has_lb ? std::min(lb, displacements[i]) : displacements[i];
      has_lb = true;
      continue;
    }
    if (handles[i] == MPI_UB) {
      ub = has_ub ? std::max(ub, displacements[i]) : displacements[i];
      has_ub = true;
      continue;
    }
    pieces.push_back(Piece{displacements[i], blocklengths[i], types[i]});
  }
  *out = build(pieces, Combiner::kStruct);
  if (has_lb) out->lb = lb;
  if (has_ub) out->ub = ub;
  if (!has_ub && !pieces.empty()) {
    // A struct's extent is padded to the strictest alignment of its members (as a C struct).
    int64_t align = 1;
    for (const Piece& p : pieces) {
      for (const Block& b : p.type->blocks) align = std::max<int64_t>(align, std::min<int64_t>(b.elem, 16));
    }
    int64_t extent = out->ub - out->lb;
    if (extent % align != 0) out->ub += align - extent % align;
  }
  out->ints = {static_cast<int64_t>(types.size())};
  out->ints.insert(out->ints.end(), blocklengths.begin(), blocklengths.end());
  out->aints = displacements;
  out->types = handles;
  return Error::ok();
}

Error make_resized(const Datatype& old, int old_handle, int64_t lb, int64_t extent, Datatype* out) {
  *out = old;
  out->predefined = false;
  out->committed = false;
  out->name.clear();
  out->lb = lb;
  out->ub = lb + extent;
  out->combiner = Combiner::kResized;
  out->ints.clear();
  out->large_counts.clear();
  out->aints = {lb, extent};
  out->types = {old_handle};
  return Error::ok();
}

Error make_dup(const Datatype& old, int old_handle, Datatype* out) {
  *out = old;
  out->predefined = false;
  out->committed = old.committed;
  out->name.clear();
  out->combiner = Combiner::kDup;
  out->ints.clear();
  out->aints.clear();
  out->large_counts.clear();
  out->types = {old_handle};
  return Error::ok();
}

namespace {
// Per dimension the global indices covered, row-major (C) or column-major (Fortran) layout of the
// full array `sizes`; the type's extent is the whole array.
Datatype grid(const Datatype& old, const std::vector<int>& sizes, const std::vector<std::vector<int>>& indices,
              bool fortran_order) {
  size_t nd = sizes.size();
  std::vector<int64_t> stride(nd);  // in elements of old
  int64_t s = 1;
  for (size_t k = 0; k < nd; ++k) {
    size_t d = fortran_order ? k : nd - 1 - k;
    stride[d] = s;
    s *= sizes[d];
  }
  size_t inner = fortran_order ? 0 : nd - 1;
  std::vector<Piece> pieces;
  std::vector<size_t> pos(nd, 0);
  bool empty = false;
  for (const auto& v : indices) empty = empty || v.empty();
  while (!empty) {
    int64_t base = 0;
    for (size_t d = 0; d < nd; ++d) {
      if (d != inner) base += indices[d][pos[d]] * stride[d];
    }
    // Runs of consecutive indices along the innermost dimension become one piece.
    const std::vector<int>& in = indices[inner];
    for (size_t i = 0; i < in.size();) {
      size_t j = i + 1;
      while (j < in.size() && in[j] == in[j - 1] + 1) ++j;
      pieces.push_back(Piece{(base + in[i] * stride[inner]) * old.extent(), static_cast<int64_t>(j - i), &old});
      i = j;
    }
    // Next combination of the outer dimensions (the slowest varying last).
    size_t k = 0;
    for (; k < nd; ++k) {
      size_t d = fortran_order ? k : nd - 1 - k;
      if (d == inner) continue;
      if (++pos[d] < indices[d].size()) break;
      pos[d] = 0;
    }
    if (k == nd) break;
  }
  Datatype t = build(pieces, Combiner::kSubarray);
  t.lb = old.lb;
  t.ub = old.lb + s * old.extent();
  return t;
}

Error check_dims(size_t nd, const char* call) {
  if (nd == 0) return error(MPI_ERR_ARG, "%s: ndims must be positive", call);
  return Error::ok();
}
}  // namespace

Error make_subarray(const Datatype& old, int old_handle, const std::vector<int>& sizes,
                    const std::vector<int>& subsizes, const std::vector<int>& starts, bool fortran_order,
                    const char* call, Datatype* out) {
  Error e = check_dims(sizes.size(), call);
  if (!e.is_ok()) return e;
  std::vector<std::vector<int>> idx(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] <= 0 || subsizes[d] <= 0 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d]) {
      return error(MPI_ERR_ARG, "%s: dimension %zu: size %d, subsize %d, start %d do not fit", call, d, sizes[d],
                   subsizes[d], starts[d]);
    }
    for (int i = 0; i < subsizes[d]; ++i) idx[d].push_back(starts[d] + i);
  }
  *out = grid(old, sizes, idx, fortran_order);
  out->combiner = Combiner::kSubarray;
  out->ints = {static_cast<int64_t>(sizes.size())};
  for (auto* v : {&sizes, &subsizes, &starts}) out->ints.insert(out->ints.end(), v->begin(), v->end());
  out->ints.push_back(fortran_order ? MPI_ORDER_FORTRAN : MPI_ORDER_C);
  out->types = {old_handle};
  return Error::ok();
}

Error make_darray(const Datatype& old, int old_handle, int size, int rank, const std::vector<int>& gsizes,
                  const std::vector<int>& distribs, const std::vector<int>& dargs, const std::vector<int>& psizes,
                  bool fortran_order, const char* call, Datatype* out) {
  size_t nd = gsizes.size();
  Error e = check_dims(nd, call);
  if (!e.is_ok()) return e;
  int64_t procs = 1;
  for (int p : psizes) procs *= p;
  if (procs != size || rank < 0 || rank >= size) {
    return error(MPI_ERR_ARG, "%s: the process grid holds %lld processes, not size %d (rank %d)", call,
                 static_cast<long long>(procs), size, rank);
  }
  // Process coordinates: row-major over psizes (MPI's rule, whatever the array order).
  std::vector<int> coord(nd);
  int r = rank;
  for (size_t d = nd; d-- > 0;) {
    coord[d] = r % psizes[d];
    r /= psizes[d];
  }
  std::vector<std::vector<int>> idx(nd);
  for (size_t d = 0; d < nd; ++d) {
    int n = gsizes[d], p = psizes[d], c = coord[d];
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_NONE:
        for (int i = 0; i < n; ++i) idx[d].push_back(i);
        break;
      case MPI_DISTRIBUTE_BLOCK: {
        int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (n + p - 1) / p : dargs[d];
        if (static_cast<int64_t>(b) * p < n) {
          return error(MPI_ERR_ARG, "%s: dimension %zu: block %d x %d processes does not cover %d", call, d, b, p, n);
        }
        for (int i = c * b; i < std::min(n, (c + 1) * b); ++i) idx[d].push_back(i);
        break;
      }
      case MPI_DISTRIBUTE_CYCLIC: {
        int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
        for (int start = c * b; start < n; start += p * b) {
          for (int i = start; i < std::min(n, start + b); ++i) idx[d].push_back(i);
        }
        break;
      }
      default:
        return error(MPI_ERR_ARG, "%s: dimension %zu: distribution %d is not BLOCK, CYCLIC or NONE", call, d,
                     distribs[d]);
    }
  }
  *out = grid(old, gsizes, idx, fortran_order);
  out->combiner = Combiner::kDarray;
  out->ints = {size, rank, static_cast<int64_t>(nd)};
  for (auto* v : {&gsizes, &distribs, &dargs, &psizes}) out->ints.insert(out->ints.end(), v->begin(), v->end());
  out->ints.push_back(fortran_order ? MPI_ORDER_FORTRAN : MPI_ORDER_C);
  out->types = {old_handle};
  return Error::ok();
}

// ---- packing ----

void pack(const Datatype& type, const void* buf, int64_t count, char* out) {
  const char* base = static_cast<const char*>(buf);
  if (type.contiguous()) {
    std::memcpy(out, base + type.true_lb, static_cast<size_t>(count * type.size));
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const char* elem = base + i * type.extent();
    for (const Block& b : type.blocks) {
      std::memcpy(out, elem + b.offset, static_cast<size_t>(b.length));
      out += b.length;
    }
  }
}

void unpack(const Datatype& type, const char* in, int64_t bytes, void* buf, int64_t count) {
  char* base = static_cast<char*>(buf);
  if (type.contiguous()) {
    std::memcpy(base + type.true_lb, in, static_cast<size_t>(std::min(bytes, count * type.size)));
    return;
  }
  for (int64_t i = 0; i < count && bytes > 0; ++i) {
    char* elem = base + i * type.extent();
    for (const Block& b : type.blocks) {
      int64_t n = std::min(b.length, bytes);
      std::memcpy(elem + b.offset, in, static_cast<size_t>(n));
      in += n;
      bytes -= n;
      if (bytes == 0) return;
    }
  }
}

int64_t elements_in(const Datatype& type, int64_t bytes) {
  if (type.size == 0) return 0;
  int64_t whole = bytes / type.size, rest = bytes % type.size;
  int64_t n = whole * type.basic_count;
  for (const Block& b : type.blocks) {
    if (rest == 0) break;
    int64_t take = std::min(rest, b.length);
    if (take % b.elem != 0) return -1;
    // Complex elements count as one basic element of two parts.
    n += take / b.elem;
    rest -= take;
  }
  return n;
}

int64_t external32_size(const Datatype& type) {
  int64_t n = 0;
  for (const Block& b : type.blocks) n += b.length / b.elem * b.ext;
  return n;
}

namespace {
// Converts one element between native (little-endian, `elem` bytes) and external32 (big-endian,
// `ext` bytes).
void element_to_ext(const Block& b, const char* in, char* out) {
  uint8_t tmp[16] = {0};
  std::memcpy(tmp, in, b.elem);
  if (!b.swap) {
    std::memcpy(out, tmp, b.ext);
    return;
  }
  for (int i = 0; i < b.ext; ++i) out[i] = static_cast<char>(tmp[b.ext - 1 - i]);  // low ext bytes, reversed
}
void element_from_ext(const Block& b, const char* in, char* out) {
  uint8_t tmp[16] = {0};
  if (!b.swap) {
    std::memcpy(out, in, b.elem);
    return;
  }
  for (int i = 0; i < b.ext; ++i) tmp[i] = static_cast<uint8_t>(in[b.ext - 1 - i]);
  if (b.sign && b.ext < b.elem && (tmp[b.ext - 1] & 0x80)) {
    for (int i = b.ext; i < b.elem; ++i) tmp[i] = 0xff;
  }
  std::memcpy(out, tmp, b.elem);
}
// Calls convert(block) for every basic element of `count` elements of `type`, in typemap order.
template <typename Convert>
void each_basic_element(const Datatype& type, int64_t count, Convert convert) {
  for (int64_t i = 0; i < count; ++i) {
    for (const Block& b : type.blocks) {
      for (int64_t k = 0; k < b.length; k += b.elem) convert(b);
    }
  }
}
}  // namespace

void to_external32(const Datatype& type, int64_t count, const char* native, char* out) {
  each_basic_element(type, count, [&](const Block& b) {
    element_to_ext(b, native, out);
    native += b.elem;
    out += b.ext;
  });
}

void from_external32(const Datatype& type, int64_t count, const char* in, char* native) {
  each_basic_element(type, count, [&](const Block& b) {
    element_from_ext(b, in, native);
    native += b.elem;
    in += b.ext;
  });
}

void record_large_counts(Datatype* t) {
  std::vector<int64_t>& ints = t->ints;
  auto take = [&](size_t from, size_t n) {
    t->large_counts.insert(t->large_counts.end(), ints.begin() + static_cast<ptrdiff_t>(from),
                           ints.begin() + static_cast<ptrdiff_t>(from + n));
    ints.erase(ints.begin() + static_cast<ptrdiff_t>(from), ints.begin() + static_cast<ptrdiff_t>(from + n));
  };
  if (t->combiner == Combiner::kSubarray) {  // ndims, sizes, subsizes, starts, order
    take(1, static_cast<size_t>(ints[0]) * 3);
  } else if (t->combiner == Combiner::kDarray) {  // size, rank, ndims, gsizes, distribs, dargs, psizes, order
    take(3, static_cast<size_t>(ints[2]));
  } else if (t->combiner != Combiner::kNamed && t->combiner != Combiner::kDup) {
    take(0, ints.size());
    t->large_counts.insert(t->large_counts.end(), t->aints.begin(), t->aints.end());
    t->aints.clear();
  }
}

}  // namespace gasket::mpi::datatype
