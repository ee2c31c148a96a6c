// MPI 5.0's handle conversions to and from C int (section 20.3: MPI_x_toint / MPI_x_fromint) and
// the ABI queries (section 20.4: MPI_Abi_*), as this native library answers them; libmpi_abi.so.1
// (mpi/abi) answers for the standard ABI. And two MPI 4.1 queries: MPI_Get_hw_resource_info
// (section 11.4.4; from hwloc) and MPI_Type_get_value_index (section 6.9.4).
#include <cstring>
#include <string>

#include "core/topology/topology.h"
#include "mpi.h"
#include "mpi/api/call.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;

namespace {

// The sizes and kinds of gasket's Fortran layer (gfortran: mpi/fortran), from its named types.
struct FortranType {
  const char* key;
  MPI_Datatype type;
};
constexpr FortranType kFortranSizes[] = {
    {"mpi_logical_size", MPI_LOGICAL},
    {"mpi_integer_size", MPI_INTEGER},
    {"mpi_real_size", MPI_REAL},
    {"mpi_double_precision_size", MPI_DOUBLE_PRECISION},
};
constexpr FortranType kFortranOptional[] = {
    {"mpi_logical1_supported", MPI_LOGICAL1},   {"mpi_logical2_supported", MPI_LOGICAL2},
    {"mpi_logical4_supported", MPI_LOGICAL4},   {"mpi_logical8_supported", MPI_LOGICAL8},
    {"mpi_logical16_supported", MPI_LOGICAL16}, {"mpi_integer1_supported", MPI_INTEGER1},
    {"mpi_integer2_supported", MPI_INTEGER2},   {"mpi_integer4_supported", MPI_INTEGER4},
    {"mpi_integer8_supported", MPI_INTEGER8},   {"mpi_integer16_supported", MPI_INTEGER16},
    {"mpi_real2_supported", MPI_REAL2},         {"mpi_real4_supported", MPI_REAL4},
    {"mpi_real8_supported", MPI_REAL8},         {"mpi_real16_supported", MPI_REAL16},
    {"mpi_complex4_supported", MPI_COMPLEX4},   {"mpi_complex8_supported", MPI_COMPLEX8},
    {"mpi_complex16_supported", MPI_COMPLEX16}, {"mpi_complex32_supported", MPI_COMPLEX32},
};

// The LOGICAL kinds gasket's Fortran layer has: .TRUE. is 1 and .FALSE. 0 (gfortran).
bool fortran_logical_size(int bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

// Predefined value-index pairs (MPI_MINLOC / MPI_MAXLOC types): value type, index type, pair.
constexpr MPI_Datatype kPairs[][3] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},     {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},       {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},     {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_REAL, MPI_REAL, MPI_2REAL},         {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
};

}  // namespace

extern "C" {

#define GASKET_HANDLE_INT(Kind, Type)                                        \
  int PMPI_##Kind##_toint(Type handle) { return PMPI_##Kind##_c2f(handle); } \
  Type PMPI_##Kind##_fromint(int value) { return PMPI_##Kind##_f2c(value); }
// Native handles are ints already: toint is c2f (the value itself) and fromint is f2c (the
// handle when it names a live object of the kind, else the kind's null handle).
GASKET_HANDLE_INT(Comm, MPI_Comm)
GASKET_HANDLE_INT(Errhandler, MPI_Errhandler)
GASKET_HANDLE_INT(File, MPI_File)
GASKET_HANDLE_INT(Group, MPI_Group)
GASKET_HANDLE_INT(Info, MPI_Info)
GASKET_HANDLE_INT(Message, MPI_Message)
GASKET_HANDLE_INT(Op, MPI_Op)
GASKET_HANDLE_INT(Request, MPI_Request)
GASKET_HANDLE_INT(Session, MPI_Session)
GASKET_HANDLE_INT(Type, MPI_Datatype)
GASKET_HANDLE_INT(Win, MPI_Win)
#undef GASKET_HANDLE_INT

// This library is not the standard ABI (libmpi_abi.so.1 is): -1 -1, as section 20.4 says.
int PMPI_Abi_get_version(int* abi_major, int* abi_minor) {
  if (abi_major == nullptr || abi_minor == nullptr) return MPI_ERR_ARG;
  *abi_major = -1;
  *abi_minor = -1;
  return MPI_SUCCESS;
}

int PMPI_Abi_get_info(MPI_Info* info) {
  return api::info_call("MPI_Abi_get_info", [&](Context& c, Guard&) -> Error {
    if (info == nullptr) return error(MPI_ERR_ARG, "MPI_Abi_get_info: info is NULL");
    *info = c.add_info({{"mpi_aint_size", std::to_string(sizeof(MPI_Aint))},
                        {"mpi_count_size", std::to_string(sizeof(MPI_Count))},
                        {"mpi_offset_size", std::to_string(sizeof(MPI_Offset))}});
    return Error::ok();
  });
}

int PMPI_Abi_get_fortran_info(MPI_Info* info) {
  return api::info_call("MPI_Abi_get_fortran_info", [&](Context& c, Guard&) -> Error {
    if (info == nullptr) return error(MPI_ERR_ARG, "MPI_Abi_get_fortran_info: info is NULL");
    gasket::mpi::Info pairs;
    for (const FortranType& t : kFortranSizes) {
      const gasket::mpi::datatype::Datatype* type;
      Error e = c.types().lookup(t.type, "MPI_Abi_get_fortran_info", &type);
      if (!e.is_ok()) return e;
      pairs.emplace_back(t.key, std::to_string(type->size));
    }
    for (const FortranType& t : kFortranOptional) pairs.emplace_back(t.key, t.type != MPI_DATATYPE_NULL ? "true" : "false");
    *info = c.add_info(std::move(pairs));
    return Error::ok();
  });
}

// gasket has its own Fortran layer: its sizes and booleans are fixed, not the application's to set.
int PMPI_Abi_set_fortran_info(MPI_Info info) {
  return api::info_call("MPI_Abi_set_fortran_info", [&](Context& c, Guard&) -> Error {
    Error e = api::check_info(c, info, "MPI_Abi_set_fortran_info");
    if (!e.is_ok()) return e;
    return error(MPI_ERR_ABI, "MPI_Abi_set_fortran_info: info %d refused: gasket's own Fortran bindings fix the "
                 "Fortran sizes (MPI_Abi_get_fortran_info)", info);
  });
}

int PMPI_Abi_get_fortran_booleans(int logical_size, void* logical_true, void* logical_false, int* is_set) {
  if (is_set == nullptr) return MPI_ERR_ARG;
  *is_set = fortran_logical_size(logical_size) ? 1 : 0;
  if (!*is_set) return MPI_SUCCESS;
  if (logical_true == nullptr || logical_false == nullptr) return MPI_ERR_ARG;
  std::memset(logical_true, 0, static_cast<size_t>(logical_size));
  std::memset(logical_false, 0, static_cast<size_t>(logical_size));
  static_cast<unsigned char*>(logical_true)[0] = 1;  // little-endian 1
  return MPI_SUCCESS;
}

int PMPI_Abi_set_fortran_booleans(int logical_size, void* logical_true, void* logical_false) {
  (void)logical_true, (void)logical_false;
  return api::info_call("MPI_Abi_set_fortran_booleans", [&](Context&, Guard&) -> Error {
    return error(MPI_ERR_ABI, "MPI_Abi_set_fortran_booleans: LOGICAL of %d bytes refused: gasket's own Fortran "
                 "bindings fix .TRUE. (1) and .FALSE. (0)", logical_size);
  });
}

// The machine this process runs on as hwloc sees it: the number of objects of each type, keyed
// by the type's hwloc:// name, and mpi_hw_resource_type listing those names.
int PMPI_Get_hw_resource_info(MPI_Info* hw_info) {
  return api::call("MPI_Get_hw_resource_info", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (hw_info == nullptr) return error(MPI_ERR_ARG, "MPI_Get_hw_resource_info: hw_info is NULL");
    gasket::topology::Summary s = gasket::topology::summarize();
    *hw_info = c.add_info({{"mpi_hw_resource_type", "hwloc://Package,hwloc://NUMANode,hwloc://Core,hwloc://PU"},
                           {"hwloc://Package", std::to_string(s.packages)},
                           {"hwloc://NUMANode", std::to_string(s.numa_nodes)},
                           {"hwloc://Core", std::to_string(s.cores)},
                           {"hwloc://PU", std::to_string(s.hardware_threads)}});
    return Error::ok();
  });
}

// The predefined pair type of (value_type, index_type) for MPI_MINLOC / MPI_MAXLOC, or
// MPI_DATATYPE_NULL when there is none (section 6.9.4).
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type) {
  const char* call = "MPI_Type_get_value_index";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const gasket::mpi::datatype::Datatype* t;
    Error e = c.types().lookup(value_type, call, &t);
    if (e.is_ok()) e = c.types().lookup(index_type, call, &t);
    if (!e.is_ok()) return e;
    if (pair_type == nullptr) return error(MPI_ERR_ARG, "%s: pair_type is NULL", call);
    *pair_type = MPI_DATATYPE_NULL;
    for (const auto& p : kPairs) {
      if (p[0] == value_type && p[1] == index_type) *pair_type = p[2];
    }
    return Error::ok();
  });
}

}  // extern "C"
