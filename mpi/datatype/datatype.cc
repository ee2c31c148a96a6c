#include "mpi/datatype/datatype.h"

#include <complex>
#include <cstddef>
#include <cstring>

#include "mpi.h"

namespace gasket::mpi::datatype {

namespace {

template <typename A, typename B>
struct Pair {
  A a;
  B b;
};

Datatype basic(const char* name, int64_t size, int64_t align_extent = 0) {
  Datatype t;
  t.name = name;
  t.size = size;
  t.lb = t.true_lb = 0;
  t.ub = t.true_ub = align_extent != 0 ? align_extent : size;
  t.true_ub = size;
  if (size > 0) t.blocks.push_back(Block{0, size});
  t.basic_count = size > 0 ? 1 : 0;
  t.basic_size = size;
  t.predefined = true;
  t.committed = true;
  return t;
}

// A pair type (MPI_DOUBLE_INT, ...): two basic elements at their C struct offsets.
template <typename A, typename B>
Datatype pair(const char* name) {
  using P = Pair<A, B>;
  const int64_t b_offset = offsetof(P, b);
  Datatype t;
  t.name = name;
  t.size = sizeof(A) + sizeof(B);
  t.lb = t.true_lb = 0;
  t.ub = sizeof(Pair<A, B>);
  t.true_ub = b_offset + static_cast<int64_t>(sizeof(B));
  t.blocks.push_back(Block{0, static_cast<int64_t>(sizeof(A))});
  if (b_offset == static_cast<int64_t>(sizeof(A))) {
    t.blocks[0].length += sizeof(B);
  } else {
    t.blocks.push_back(Block{b_offset, static_cast<int64_t>(sizeof(B))});
  }
  t.basic_count = 2;
  t.basic_size = sizeof(A) == sizeof(B) ? sizeof(A) : 0;
  t.predefined = true;
  t.committed = true;
  return t;
}

void append_block(std::vector<Block>* blocks, int64_t offset, int64_t length) {
  if (length == 0) return;
  if (!blocks->empty() && blocks->back().offset + blocks->back().length == offset) {
    blocks->back().length += length;
  } else {
    blocks->push_back(Block{offset, length});
  }
}

// Appends `count` copies of `old` starting at byte `displacement`, and grows the bounds of `out`.
void append_copies(const Datatype& old, int64_t displacement, int64_t count, Datatype* out, bool* first) {
  for (int64_t i = 0; i < count; ++i) {
    int64_t base = displacement + i * old.extent();
    for (const Block& b : old.blocks) append_block(&out->blocks, base + b.offset, b.length);
  }
  if (count == 0) return;
  int64_t lo = displacement + old.lb, hi = displacement + (count - 1) * old.extent() + old.ub;
  int64_t tlo = displacement + old.true_lb, thi = displacement + (count - 1) * old.extent() + old.true_ub;
  if (old.extent() < 0) std::swap(lo, hi);
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

void finish_basic_size(const Datatype& old, Datatype* out) { out->basic_size = old.basic_size; }

}  // namespace

DatatypeTable::DatatypeTable() {
  types_.resize(GASKET_MPI_N_PREDEFINED_TYPES);
  auto set = [this](int h, Datatype t) { types_[static_cast<size_t>(h)] = std::make_unique<Datatype>(std::move(t)); };
  set(MPI_CHAR, basic("MPI_CHAR", 1));
  set(MPI_SIGNED_CHAR, basic("MPI_SIGNED_CHAR", 1));
  set(MPI_UNSIGNED_CHAR, basic("MPI_UNSIGNED_CHAR", 1));
  set(MPI_BYTE, basic("MPI_BYTE", 1));
  set(MPI_SHORT, basic("MPI_SHORT", sizeof(short)));
  set(MPI_UNSIGNED_SHORT, basic("MPI_UNSIGNED_SHORT", sizeof(unsigned short)));
  set(MPI_INT, basic("MPI_INT", sizeof(int)));
  set(MPI_UNSIGNED, basic("MPI_UNSIGNED", sizeof(unsigned)));
  set(MPI_LONG, basic("MPI_LONG", sizeof(long)));
  set(MPI_UNSIGNED_LONG, basic("MPI_UNSIGNED_LONG", sizeof(unsigned long)));
  set(MPI_LONG_LONG, basic("MPI_LONG_LONG", sizeof(long long)));
  set(MPI_UNSIGNED_LONG_LONG, basic("MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long)));
  set(MPI_FLOAT, basic("MPI_FLOAT", sizeof(float)));
  set(MPI_DOUBLE, basic("MPI_DOUBLE", sizeof(double)));
  set(MPI_LONG_DOUBLE, basic("MPI_LONG_DOUBLE", sizeof(long double)));
  set(MPI_WCHAR, basic("MPI_WCHAR", sizeof(wchar_t)));
  set(MPI_C_BOOL, basic("MPI_C_BOOL", sizeof(bool)));
  set(MPI_INT8_T, basic("MPI_INT8_T", 1));
  set(MPI_INT16_T, basic("MPI_INT16_T", 2));
  set(MPI_INT32_T, basic("MPI_INT32_T", 4));
  set(MPI_INT64_T, basic("MPI_INT64_T", 8));
  set(MPI_UINT8_T, basic("MPI_UINT8_T", 1));
  set(MPI_UINT16_T, basic("MPI_UINT16_T", 2));
  set(MPI_UINT32_T, basic("MPI_UINT32_T", 4));
  set(MPI_UINT64_T, basic("MPI_UINT64_T", 8));
  set(MPI_AINT, basic("MPI_AINT", sizeof(MPI_Aint)));
  set(MPI_OFFSET, basic("MPI_OFFSET", sizeof(MPI_Offset)));
  set(MPI_COUNT, basic("MPI_COUNT", sizeof(MPI_Count)));
  set(MPI_C_FLOAT_COMPLEX, basic("MPI_C_FLOAT_COMPLEX", sizeof(std::complex<float>)));
  set(MPI_C_DOUBLE_COMPLEX, basic("MPI_C_DOUBLE_COMPLEX", sizeof(std::complex<double>)));
  set(MPI_C_LONG_DOUBLE_COMPLEX, basic("MPI_C_LONG_DOUBLE_COMPLEX", sizeof(std::complex<long double>)));
  set(MPI_PACKED, basic("MPI_PACKED", 1));
  set(MPI_FLOAT_INT, pair<float, int>("MPI_FLOAT_INT"));
  set(MPI_DOUBLE_INT, pair<double, int>("MPI_DOUBLE_INT"));
  set(MPI_LONG_INT, pair<long, int>("MPI_LONG_INT"));
  set(MPI_2INT, pair<int, int>("MPI_2INT"));
  set(MPI_SHORT_INT, pair<short, int>("MPI_SHORT_INT"));
  set(MPI_LONG_DOUBLE_INT, pair<long double, int>("MPI_LONG_DOUBLE_INT"));
  set(MPI_UB, basic("MPI_UB", 0));
  set(MPI_LB, basic("MPI_LB", 0));
}

Error DatatypeTable::lookup(int handle, const char* call, const Datatype** type) const {
  if (handle == MPI_DATATYPE_NULL) return error(MPI_ERR_TYPE, "%s: the datatype is MPI_DATATYPE_NULL", call);
  if (handle < 0 || static_cast<size_t>(handle) >= types_.size() || !types_[static_cast<size_t>(handle)]) {
    return error(MPI_ERR_TYPE, "%s: %d is not a datatype handle (never created, or freed)", call, handle);
  }
  *type = types_[static_cast<size_t>(handle)].get();
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

int DatatypeTable::add(Datatype type) {
  auto p = std::make_unique<Datatype>(std::move(type));
  if (!free_handles_.empty()) {
    int h = free_handles_.back();
    free_handles_.pop_back();
    types_[static_cast<size_t>(h)] = std::move(p);
    return h;
  }
  types_.push_back(std::move(p));
  return static_cast<int>(types_.size() - 1);
}

Error DatatypeTable::free(int* handle, const char* call) {
  const Datatype* t;
  Error e = lookup(*handle, call, &t);
  if (!e.is_ok()) return e;
  if (t->predefined) return error(MPI_ERR_TYPE, "%s: %s is predefined and cannot be freed", call, t->name.c_str());
  retired_.push_back(std::move(types_[static_cast<size_t>(*handle)]));
  free_handles_.push_back(*handle);
  *handle = MPI_DATATYPE_NULL;
  return Error::ok();
}

Error make_contiguous(const Datatype& old, int old_handle, int64_t count, const char* call, Datatype* out) {
  if (count < 0) return error(MPI_ERR_COUNT, "%s: count %lld is negative", call, static_cast<long long>(count));
  *out = Datatype{};
  bool first = true;
  append_copies(old, 0, count, out, &first);
  finish_basic_size(old, out);
  out->combiner = Combiner::kContiguous;
  out->ints = {static_cast<int>(count)};
  out->types = {old_handle};
  return Error::ok();
}

Error make_vector(const Datatype& old, int old_handle, int64_t count, int64_t blocklength, int64_t stride,
                  bool stride_in_elements, const char* call, Datatype* out) {
  if (count < 0) return error(MPI_ERR_COUNT, "%s: count %lld is negative", call, static_cast<long long>(count));
  if (blocklength < 0) {
    return error(MPI_ERR_ARG, "%s: blocklength %lld is negative", call, static_cast<long long>(blocklength));
  }
  *out = Datatype{};
  bool first = true;
  int64_t stride_bytes = stride_in_elements ? stride * old.extent() : stride;
  for (int64_t i = 0; i < count; ++i) append_copies(old, i * stride_bytes, blocklength, out, &first);
  finish_basic_size(old, out);
  out->combiner = stride_in_elements ? Combiner::kVector : Combiner::kHvector;
  out->ints = {static_cast<int>(count), static_cast<int>(blocklength)};
  if (stride_in_elements) {
    out->ints.push_back(static_cast<int>(stride));
  } else {
    out->aints = {stride};
  }
  out->types = {old_handle};
  return Error::ok();
}

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

}  // namespace gasket::mpi::datatype
