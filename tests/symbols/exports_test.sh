#!/usr/bin/env bash
# Every dynamic symbol a gasket shared library defines is API: libgasket_mpi.so
# exports MPI_*/PMPI_*/MPIX_*, the callback functions mpi.h's macros name, the Fortran bindings'
# mpi_x_/pmpi_x_/mpi_x_f08(ts)_ (mpi/fortran) and the C++ API of
# core/gasket.h (gasket::am included); libgasket_shmem.so exports shmem_*/pshmem_*/shmemx_*, OpenSHMEM's deprecated
# names and the same C++ API. Anything else (an internal helper under a plain C name such as
# `select`, a C++ internal of gasket::mpi or std::) fails the test, naming the symbol.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
fail=0

cxx_api='^gasket::((memreg::)?(init|finalize|abort_job|initialized|my_pe|n_pes|n_nodes|node_of|oversubscribed|backend_running|transport_name|sym_[a-z_]+|peer_pointer|addr_accessible|pe_accessible|put|put_nbi|get|get_nbi|iput|iget|put_blocks|get_blocks|fence|quiet|barrier_all|progress|atomic|atomic_nbi|expose|release)|detail::(wait_step|back_off|spin|nap_allowed|nap_begin|nap_end|ring)|am::[A-Za-z_:~]+)\('
mpi_c='^(P?MPI_[A-Za-z0-9_]+|MPIX_[A-Za-z0-9_]+|gasket_(comm|win)_(null_copy|null_delete|dup)_fn|p?mpi_[a-z0-9_]+_|gasket_f_(sizeof|sync_reg)|__mpi_f08_MOD_[A-Za-z0-9_]+)$'
shmem_c='^(p?shmem_[a-z0-9_]+|shmemx_[a-z0-9_]+|start_pes|_my_pe|_num_pes|my_pe|num_pes|shmalloc|shfree|shrealloc|shmemalign)$'

# check LIBRARY C_PATTERN REQUIRED...: every defined dynamic symbol matches C_PATTERN or (demangled)
# the C++ API; the REQUIRED names are there (so an empty export list cannot pass).
check() {
  local lib=$1 c_pattern=$2; shift 2
  local symbols bad
  symbols=$(nm -D --defined-only "$lib" | awk '{print $3}')
  [[ -n $symbols ]] || { echo "FAILED: $lib exports nothing"; fail=1; return; }
  bad=$(grep -Ev "$c_pattern" <<<"$symbols" | c++filt | grep -Ev "$cxx_api" || true)
  if [[ -n $bad ]]; then
    echo "FAILED: $(basename "$lib") exports $(wc -l <<<"$bad") symbol(s) outside its API:"
    sed 's/^/  /' <<<"$bad" | head -50
    fail=1
  fi
  for name in "$@"; do
    grep -qx -- "$name" <<<"$symbols" || { echo "FAILED: $(basename "$lib") does not export $name"; fail=1; }
  done
  echo "$(basename "$lib"): $(wc -l <<<"$symbols") exported symbols checked"
}

check "$dir/mpi/libgasket_mpi.so" "$mpi_c" MPI_Init MPI_Send MPI_Group_incl gasket_comm_null_copy_fn mpi_send_ \
  _ZN6gasket4initERKNS_11InitOptionsE
check "$dir/shmem-api/libgasket_shmem.so" "$shmem_c" shmem_init shmem_putmem pshmem_putmem pshmem_init \
  shmem_set_lock pshmem_set_lock start_pes my_pe
# the installed library holds both APIs (tools/install)
check "$dir/tools/install/libgasket.so" "${mpi_c%)\$}|${shmem_c#^(}" MPI_Init PMPI_Send shmem_init pshmem_putmem \
  _ZN6gasket4initERKNS_11InitOptionsE
# the names once found leaking stay local
for name in select flush all any some probe gather set_op status_at check_probe complete_pair \
  matched_receive proc_null_status delete_win_attr lock_word; do
  for lib in "$dir/mpi/libgasket_mpi.so" "$dir/shmem-api/libgasket_shmem.so" "$dir/tools/install/libgasket.so"; do
    if nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx "$name"; then
      echo "FAILED: $(basename "$lib") exports the internal $name"; fail=1
    fi
  done
done
[[ $fail -eq 0 ]] && echo "exports_test: ok"
exit $fail
