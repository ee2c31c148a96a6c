# gasket's CMake package (find_package(gasket)): the imported targets
#   gasket::gasket  libgasket.so (the core, MPI and OpenSHMEM in one library: one runtime), with
#                   the C++ API (#include "core/gasket.h")
#   gasket::mpi     for MPI programs (#include <mpi.h>)
#   gasket::shmem   for OpenSHMEM programs (#include <shmem.h>)
# and gasket_MPIEXEC, gasket_OSHRUN (the launchers). Every path comes from this file's location, so
# the installed tree can be moved. For CMake's own FindMPI, see docs/INSTALL.md.
get_filename_component(_gasket_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET gasket::gasket)
  add_library(gasket::gasket SHARED IMPORTED)
  set_target_properties(gasket::gasket PROPERTIES
    IMPORTED_LOCATION "${_gasket_prefix}/lib/libgasket.so.0"
    IMPORTED_SONAME "libgasket.so.0"
    INTERFACE_INCLUDE_DIRECTORIES "${_gasket_prefix}/include;${_gasket_prefix}/include/gasket")
  foreach(_gasket_api mpi shmem)
    add_library(gasket::${_gasket_api} INTERFACE IMPORTED)
    set_target_properties(gasket::${_gasket_api} PROPERTIES INTERFACE_LINK_LIBRARIES gasket::gasket)
  endforeach()
endif()

set(gasket_INCLUDE_DIRS "${_gasket_prefix}/include")
set(gasket_MPIEXEC "${_gasket_prefix}/bin/mpiexec")
set(gasket_OSHRUN "${_gasket_prefix}/bin/oshrun")
unset(_gasket_prefix)
