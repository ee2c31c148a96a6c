// Handle values (the layout is declared once, in mpi.h: GASKET_HANDLE_*; mpi/README.md "Handles").
// A handle is (kind << GASKET_HANDLE_KIND_SHIFT) | slot; every table turns its handles into slots
// and back through the functions below, and nothing else knows the layout. A value of another
// kind, or one that is not a handle at all, has no slot in any table of the expected kind.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mpi.h"

namespace gasket::mpi {

enum class HandleKind : int {
  kComm = GASKET_HANDLE_KIND_COMM,
  kGroup = GASKET_HANDLE_KIND_GROUP,
  kDatatype = GASKET_HANDLE_KIND_DATATYPE,
  kOp = GASKET_HANDLE_KIND_OP,
  kRequest = GASKET_HANDLE_KIND_REQUEST,
  kInfo = GASKET_HANDLE_KIND_INFO,
  kWin = GASKET_HANDLE_KIND_WIN,
  kErrhandler = GASKET_HANDLE_KIND_ERRHANDLER,
  kMessage = GASKET_HANDLE_KIND_MESSAGE,
  kFile = GASKET_HANDLE_KIND_FILE,
  kSession = GASKET_HANDLE_KIND_SESSION,
};

// What slot_of() answers for a value that is not a handle of the kind asked (no table reaches it).
constexpr size_t kNoSlot = SIZE_MAX;
// The largest slot a table may give out.
constexpr size_t kMaxSlot = GASKET_HANDLE_SLOT_MASK - 1;  // the mask itself: MPI_MESSAGE_NO_PROC

// The handle of the object in `slot` (1 .. kMaxSlot) of `kind`'s table.
constexpr int handle_of(HandleKind kind, size_t slot) {
  return (static_cast<int>(kind) << GASKET_HANDLE_KIND_SHIFT) | static_cast<int>(slot);
}

// Whether `handle` is a value of `kind` (the null handle 0 is of no kind).
constexpr bool is_kind(int handle, HandleKind kind) {
  return handle > 0 && (handle >> GASKET_HANDLE_KIND_SHIFT) == static_cast<int>(kind);
}

// Whether two non-null values are handles of the same kind.
constexpr bool same_kind(int a, int b) {
  return a > 0 && b > 0 && (a >> GASKET_HANDLE_KIND_SHIFT) == (b >> GASKET_HANDLE_KIND_SHIFT);
}

// The slot of `handle` in `kind`'s table: 0 for the null handle (a slot no table fills), kNoSlot
// for a value of another kind or no handle at all.
constexpr size_t slot_of(HandleKind kind, int handle) {
  if (handle == 0) return 0;
  return is_kind(handle, kind) ? static_cast<size_t>(handle & GASKET_HANDLE_SLOT_MASK) : kNoSlot;
}

// Why a lookup of `handle` as `kind` found nothing, for the error message: "never created, or
// freed" for a value of that kind, "it is a communicator" for a handle of another kind, ...
const char* why_not_found(HandleKind kind, int handle);

}  // namespace gasket::mpi

namespace gasket::mpi {

// The entry of `table` (a vector indexed by slot) that `handle` names as a `kind`, or null when the
// value has no slot there (another kind, past the end). The entry itself may be empty (freed).
template <typename Table>
auto* entry_of(Table& table, HandleKind kind, int handle) {
  size_t slot = slot_of(kind, handle);
  return slot < table.size() ? &table[slot] : nullptr;
}

}  // namespace gasket::mpi
