/* The Fortran bindings' C helpers (mpi/fortran/README.md): what the generated wrappers
 * (fortran_wrappers.c) call to turn Fortran's arguments into the C API's. */
#ifndef GASKET_MPI_FORTRAN_SUPPORT_H_
#define GASKET_MPI_FORTRAN_SUPPORT_H_

#include <stddef.h>

#include <ISO_Fortran_binding.h>

#include "mpi.h"

/* Library variables behind Fortran's sentinels: mpif.h and the `mpi` module name them through
 * COMMON blocks of these names, mpi_f08 through BIND(C) variables; the wrappers compare addresses. */
extern MPI_Fint mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern MPI_Fint mpi_fortran_unweighted_[1];
extern MPI_Fint mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1];
extern char mpi_fortran_argvs_null_[1];

/* A choice buffer: MPI_BOTTOM / MPI_IN_PLACE as C's values, any other address as it is. */
static inline void* gasket_f_buffer(void* p) {
  if (p == &mpi_fortran_bottom_) return MPI_BOTTOM;
  if (p == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  return p;
}
/* A Fortran status (MPI_STATUS_SIZE integers) is laid out as MPI_Status (mpi.h; conversion.cc). */
static inline MPI_Status* gasket_f_status(MPI_Fint* s) {
  return s == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status*)(void*)s;
}
static inline MPI_Status* gasket_f_statuses(MPI_Fint* s) {
  return s == mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE : (MPI_Status*)(void*)s;
}
static inline int* gasket_f_weights(MPI_Fint* w) {
  if (w == mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (w == mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return w;
}
/* Positions in an array of handles (MPI_Waitany's index, MPI_Waitsome's array_of_indices): C
 * counts from 0, Fortran from 1 (MPI 4.1 section 19.1.7 and the procedures' Fortran bindings);
 * MPI_UNDEFINED (no active request, or outcount MPI_UNDEFINED) stays as it is. An array is
 * converted when the call wrote it (success, or MPI_ERR_IN_STATUS: an error found before leaves it,
 * and outcount, unset); a single position whatever the error (a failed request's is reported). */
static inline void gasket_f_position(MPI_Fint* position) {
  if (*position != MPI_UNDEFINED) *position += 1;
}
static inline void gasket_f_positions(int e, MPI_Fint* positions, int count) {
  if (e != MPI_SUCCESS && e != MPI_ERR_IN_STATUS) return;
  for (int i = 0; i < count && count != MPI_UNDEFINED; i++) {
    if (positions[i] != MPI_UNDEFINED) positions[i] += 1;
  }
}
static inline int* gasket_f_errcodes(MPI_Fint* e) { return e == mpi_fortran_errcodes_ignore_ ? NULL : e; }

/* Attribute values set from Fortran are cached as the address of a cell holding the value (C's
 * MPI_*_get_attr gets a pointer to it, MPI 4.1 section 19.3.7); _out gives Fortran the value of
 * a cell, or what C cached (a pointer) as an integer. */
void* gasket_f_attribute_in(MPI_Aint value);
MPI_Aint gasket_f_attribute_out(void* cached);

/* CHARACTER arguments: an input copied without its trailing blanks and null-terminated (free()
 * it); an output buffer large enough for any MPI_MAX_* string or `len`, copied back blank-padded. */
char* gasket_f_string_in(const char* s, size_t len);
/* An info key or value: leading blanks are stripped too (MPI 4.1 section 10: "In Fortran, leading
 * and trailing spaces are stripped from both"). */
char* gasket_f_info_string_in(const char* s, size_t len);
char* gasket_f_string_buffer(size_t len);
void gasket_f_string_out(char* dst, size_t len, const char* src);

/* Arrays of CHARACTER strings (MPI_Comm_spawn(_multiple)), each `len` characters, as C's arrays of
 * null-terminated strings without their trailing blanks, in one allocation (free() it):
 * argv ends at its first blank string (MPI_ARGV_NULL -> NULL); `count` commands; argvs is a
 * (count, *) array whose row i is command i's blank-ended argv (MPI_ARGVS_NULL -> NULL). They are
 * significant at the root of `comm` only: elsewhere NULL, the Fortran array not read. */
char** gasket_f_argv(const char* argv, size_t len, MPI_Comm comm, int root);
char** gasket_f_strings(const char* strings, size_t len, MPI_Fint count, MPI_Comm comm, int root);
char*** gasket_f_argvs(const char* argvs, size_t len, MPI_Fint count, MPI_Comm comm, int root);

/* The hand-written MPI_Register_datarep(_c) bindings (support.c), which mpi_f08's generated
 * adapters call with the name's descriptor unpacked. */
#define GASKET_F_DATAREP_DECLARE(name)                                                                 \
  void name(char* datarep, void* read, void* write, void* extent, MPI_Aint* extra_state, MPI_Fint* ierror, \
            size_t datarep_len);
GASKET_F_DATAREP_DECLARE(mpi_register_datarep_)
GASKET_F_DATAREP_DECLARE(pmpi_register_datarep_)
GASKET_F_DATAREP_DECLARE(mpi_register_datarep_c_)
GASKET_F_DATAREP_DECLARE(pmpi_register_datarep_c_)

/* mpi_f08's choice buffers (TS 29113 descriptors). A contiguous one is used in place. A
 * non-contiguous section becomes a derived datatype describing it, when the buffer has its own
 * count and datatype (count, datatype non-NULL): the datatype must be contiguous, each array
 * element whole elements of it, and count must cover the whole section; the call then gets count
 * 1 of the new type. Anything else is refused (MPI_ERR_BUFFER / MPI_ERR_COUNT naming the call,
 * the rank and the values). close() frees the type made (pending operations keep it alive). */
/* A descriptor whose elements are adjacent in the simplest way (a scalar, or a vector of stride
 * one element): its base address is the buffer, no more to check (the usual case, kept fast). */
static inline int gasket_f08_simple(const CFI_cdesc_t* d) {
  return d->rank == 0 || (d->rank == 1 && (d->dim[0].sm == (CFI_index_t)d->elem_len || d->dim[0].extent <= 1));
}
struct gasket_f08_section {
  void* base;
  MPI_Datatype made;
};
int gasket_f08_section_open(const char* call, const char* buffer, CFI_cdesc_t* d, MPI_Count* count,
                            MPI_Datatype* datatype, struct gasket_f08_section* s);
void gasket_f08_section_close(struct gasket_f08_section* s);

#endif /* GASKET_MPI_FORTRAN_SUPPORT_H_ */
