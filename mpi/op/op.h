// Reduction operations: the predefined MPI_Op's on the predefined types the standard allows
// (integers, floating point, complex for SUM/PROD, C_BOOL for the logical ops, MINLOC/MAXLOC on
// every pair type), user-defined operations (MPI_Op_create) in the OpTable, and one function that
// applies any of them to typed data. Used by the collectives (mpi/coll) and by RMA accumulates
// (mpi/win). May call mpi/base and mpi/datatype.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"
#include "mpi/datatype/datatype.h"

namespace gasket::mpi::op {

// inout[i] = in[i] (op) inout[i] for `n` elements of the predefined type `type` laid out as in
// memory (pair types for MPI_MINLOC/MPI_MAXLOC at their C struct stride); MPI_REPLACE stores
// in[i], MPI_NO_OP leaves inout. False when `op` is not defined for `type`.
bool apply_predefined(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int64_t n);
// The same on elements packed (datatype::pack's stream: a pair's index right after its value).
bool apply_predefined_packed(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int64_t n);

// "MPI_SUM", ... ("user operation 17" for the others).
const char* name(MPI_Op op);

// A user operation: MPI_Op_create's function (int count) or MPI_Op_create_c's (MPI_Count).
struct UserOp {
  MPI_User_function* function = nullptr;
  MPI_User_function_c* function_c = nullptr;
  bool commutative = true;
};

// Whether `op` is one of the predefined operations (MPI_MAX .. MPI_NO_OP).
bool is_predefined(MPI_Op op);

// User-defined operations; their slots follow MPI_NO_OP's.
class OpTable {
 public:
  MPI_Op add(const UserOp& op);
  Error free(MPI_Op* op, const char* call);
  // The user operation behind `op`, or null (predefined, never an op). A freed one is still
  // found: collectives started before MPI_Op_free complete with it.
  const UserOp* find(MPI_Op op) const;
  // Whether a new call may use `op` (predefined, or created and not freed).
  bool valid(MPI_Op op) const;
  bool commutative(MPI_Op op) const {
    const UserOp* u = find(op);
    return u == nullptr || u->commutative;
  }

 private:
  // The index in ops_ of a user operation's handle (kNoSlot for any other value).
  static size_t user_index(MPI_Op op);

  std::vector<UserOp> ops_;  // index = slot - MPI_NO_OP's slot - 1
  std::vector<bool> live_;
};

// Why `op` cannot reduce `type` (unknown op, predefined op not defined for the type's basic
// elements, a derived type of mixed basic types), naming `call`, the rank and both; ok otherwise.
Error check(const OpTable& ops, const datatype::DatatypeTable& types, MPI_Op op, const datatype::Datatype& type,
            const char* call, int rank);

// inout = in (op) inout for `count` elements of `type` given in packed form (datatype::pack's
// byte stream): predefined ops run on the type's basic elements, user ops get the elements laid
// out by `type` (unpacked around the call when the type is not contiguous). check() first.
void apply(const OpTable& ops, MPI_Op op, int type_handle, const datatype::Datatype& type, const void* in,
           void* inout, int64_t count);

// The loop of one predefined operation on one basic type: inout[i] = in[i] (op) inout[i], `n`
// basic elements.
using Reducer = void (*)(const void* in, void* inout, int64_t n);

// `op` on `type` resolved once (a collective combines many contributions with it): a predefined
// op on a type made of one predefined basic type of one value (integers, floating point, logical,
// bytes) runs its loop straight away; every other pair (user ops, complex, MINLOC/MAXLOC) goes
// through apply(). Operands in packed form, as for apply().
class Combiner {
 public:
  Combiner(const OpTable& ops, MPI_Op op, int type_handle, const datatype::Datatype& type);
  void operator()(const void* in, void* inout, int64_t count) const {
    if (loop_ != nullptr) return loop_(in, inout, count * basic_per_element_);
    apply(ops_, op_, type_handle_, type_, in, inout, count);
  }

 private:
  const OpTable& ops_;
  MPI_Op op_;
  int type_handle_;
  const datatype::Datatype& type_;
  Reducer loop_ = nullptr;
  int64_t basic_per_element_ = 0;
};

}  // namespace gasket::mpi::op
