#!/usr/bin/env bash
# A gasket program started by a launcher it cannot bootstrap through must stop at MPI_Init with a
# message naming the launcher's variables (it ran as N independent singletons
# and exited 0). GASKET_BOOTSTRAP=local still runs it as a singleton; a PMI_FD that is not open,
# a PMI_PORT nobody listens on and other bad PMI values are named. Each case runs one process directly, as a launcher would start each of its copies.
#   foreign_launcher_refused_test.sh PROGRAM
set -u
program=$1
failures=0

# expect_refusal "VAR=value ..." REGEX: the program must fail at once with stderr matching REGEX.
expect_refusal() {
  local assignments=$1 expect=$2 out status
  out=$(env -u GASKET_JOB_STORE $assignments timeout 60 "$program" 2>&1)
  status=$?
  if [ $status -eq 0 ] || [ $status -eq 124 ]; then
    echo "FAILED: with $assignments the program exited $status (expected a refusal):" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  elif ! grep -Eq -- "$expect" <<<"$out"; then
    echo "FAILED: with $assignments stderr does not match /$expect/:" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $assignments -> refused (status $status)"
  fi
}

refusal='MPI_Init: bootstrap: started by a launcher gasket cannot bootstrap through: the environment has'
# Hydra's variables without its socket (e.g. a wrapper script that closed PMI_FD's descriptor).
expect_refusal "PMI_RANK=1 PMI_SIZE=2" "$refusal PMI_RANK=1, PMI_SIZE=2 but none of GASKET_JOB_STORE"
# PMI_PORT connect mode: a port nobody listens on, a bad value, no PMI_ID.
expect_refusal "PMI_PORT=127.0.0.1:1 PMI_ID=0" "bootstrap: connect to PMI_PORT 127.0.0.1:1: connect: Connection refused"
expect_refusal "PMI_PORT=nohost PMI_ID=0" "bootstrap: bad PMI_PORT='nohost': no port"
expect_refusal "PMI_PORT=127.0.0.1:1" "PMI_PORT='127.0.0.1:1' is set but PMI_ID is not"
# Open MPI's mpirun without its PMIx server.
expect_refusal "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4" \
  "$refusal OMPI_COMM_WORLD_RANK=0, OMPI_COMM_WORLD_SIZE=4 but"
# Half of PMIx's pair.
expect_refusal "PMIX_RANK=0" "$refusal PMIX_RANK=0 but"
# srun without --mpi: several tasks and no process-management interface.
expect_refusal "SLURM_STEP_NUM_TASKS=2 SLURM_PROCID=1" "$refusal SLURM_STEP_NUM_TASKS=2, SLURM_PROCID=1 but"
# The refusal says how to run it anyway.
expect_refusal "PMI_SIZE=2" "or set GASKET_BOOTSTRAP=local to run it as a singleton anyway"
# A PMI_FD that is not an open descriptor is named with its value.
expect_refusal "PMI_FD=987 PMI_RANK=0 PMI_SIZE=2" "bootstrap: bad PMI_FD='987': not an open file descriptor"
# PMI_FD without the rank and size.
expect_refusal "PMI_FD=2" \
  "a PMI-1 process manager sets PMI_FD, PMI_RANK and PMI_SIZE; this process has PMI_FD=2, PMI_RANK=\(unset\)"

# One task of srun and GASKET_BOOTSTRAP=local are singletons, as asked.
for assignments in "SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0" "GASKET_BOOTSTRAP=local PMI_RANK=1 PMI_SIZE=2"; do
  out=$(env -u GASKET_JOB_STORE $assignments timeout 60 "$program" 2>&1)
  status=$?
  if [ $status -ne 0 ] || ! grep -q "ok on 1 ranks" <<<"$out"; then
    echo "FAILED: with $assignments a singleton was expected (status $status):" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  else
    echo "ok: $assignments -> singleton"
  fi
done
exit $((failures > 0))
