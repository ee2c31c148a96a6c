#!/usr/bin/env bash
# Slurm as the launcher, for real: installs slurm-wlm and munge if missing, starts a private
# munged, slurmctld and slurmd on this machine (config, state, logs and sockets in a temporary
# directory; SLURM_CONF points at it, nothing under /etc is written), runs gasket programs with
# `srun --mpi=pmix -n 4 --overcommit`, checks their results, and tears everything down (daemons
# killed by PID, directory removed). As root; skips ("SKIP:", exit 0) when the daemons cannot run.
#
#   slurm_test.sh CLUSTER_PROBE [--dynproc SPAWN PORTS] [PROGRAM...]
# CLUSTER_PROBE (tests/cluster:cluster_probe) checks the PMIx job itself: 4 PEs, 1 node, puts and
# atomics, over the direct path, pciddc tcp and ucx tcp, and that a PMIx_Abort ends the job at once.
# Each further PROGRAM (the core, MPI and OpenSHMEM suites) runs on 4 PEs under srun.
# Then `srun --mpi=pmi2` (PMI bootstrap): the probe on two paths, its abort, p2p_basic, collectives.
# --dynproc (tests/dynproc's spawn and ports): MPI_Comm_spawn under srun is refused with
# MPI_ERR_SPAWN naming Slurm's answer (its PMIx server cannot spawn: NOT-SUPPORTED), and two
# separate srun jobs meet by name (MPI_Publish_name / MPI_Lookup_name + accept/connect) through
# the name directory, since Slurm's PMIx server keeps no names either.
set -u
probe=$1
shift
spawn="" ports=""
if [ "${1:-}" = --dynproc ]; then spawn=$2 ports=$3; shift 3; fi
programs=("$@")
skip() { echo "SKIP: slurm test: $*"; exit 0; }
fail() { echo "FAILED: slurm test: $*" >&2; failed=1; }
[ "$(id -u)" -eq 0 ] || skip "needs root to start munged, slurmctld and slurmd"

need=()
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v srun >/dev/null || need+=(slurm-wlm)
command -v munged >/dev/null || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  echo "slurm test: installing ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
    skip "cannot install ${need[*]} (apt-get install failed: offline?)"
fi
srun --mpi=list 2>/dev/null | grep -qw pmix || [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so ] ||
  skip "this Slurm has no pmix MPI plugin"
[ -r /etc/munge/munge.key ] || skip "no /etc/munge/munge.key (the munge package creates it)"

dir=$(mktemp -d /tmp/gasket-slurm.XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  rm -rf "$dir"
}
trap cleanup EXIT
show_logs() { for f in "$dir"/*.log; do echo "--- $f"; tail -20 "$f"; done >&2; }

# munge: its own socket, run as the munge user (munged refuses unsafe ownership).
mkdir -p "$dir/munge"
chown munge:munge "$dir/munge" 2>/dev/null || skip "no munge user"
chmod 755 "$dir/munge"
sock=$dir/munge/munge.socket
runuser -u munge -- /usr/sbin/munged --socket="$sock" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" --foreground >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 || { cat "$dir/munge/munged.log" >&2 2>/dev/null; skip "munged did not start (munge | unmunge fails)"; }

host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool"
export SLURM_CONF=$dir/slurm.conf
# A port pair (slurmctld, slurmd) nobody listens on. Other tests of the suite open TCP ports at
# the same time, so a port free when checked may be taken before slurmctld binds it: then
# slurmctld exits with "Address already in use" and the next pair is tried.
free_port_pair() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    [ -z "$(ss -Htan "( sport = :$p or sport = :$((p + 1)) )" 2>/dev/null)" ] && { echo "$p"; return; }
  done
}
write_conf() {
  port=$1
  cat >"$dir/slurm.conf" <<EOF
ClusterName=gasket
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillOnBadExit=1
MpiDefault=none
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=gasket Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=FORCE:4
EOF
}
ctld_pid=""
for attempt in 1 2 3 4 5; do
  write_conf "$(free_port_pair)"
  /usr/sbin/slurmctld -D -i >"$dir/slurmctld.out.log" 2>&1 &
  ctld_pid=$!
  for _ in $(seq 50); do
    kill -0 "$ctld_pid" 2>/dev/null || break
    [ -n "$(ss -Htln "( sport = :$port )" 2>/dev/null)" ] && break
    sleep 0.1
  done
  kill -0 "$ctld_pid" 2>/dev/null && break
  grep -q "Address already in use" "$dir/slurmctld.out.log" || { show_logs; fail "slurmctld exited at start"; exit 1; }
  echo "slurm test: port $port taken before slurmctld bound it (attempt $attempt); another pair"
  ctld_pid=""
done
[ -n "$ctld_pid" ] || { show_logs; fail "slurmctld found no free port in 5 attempts"; exit 1; }
pids+=("$ctld_pid")
/usr/sbin/slurmd -D >"$dir/slurmd.out.log" 2>&1 &
pids+=($!)
up="" state=""
for _ in $(seq 60); do
  state=$(timeout 5 sinfo -h -o %T 2>/dev/null | head -1)
  case "$state" in idle*|mixed*|allocated*) up=1; break ;; esac
  sleep 0.5
done
# Slurm is installed and its daemons started: a node that does not come up is a failure.
[ -n "$up" ] || { show_logs; fail "slurmctld/slurmd did not bring the node up (sinfo: '${state:-nothing}')"; exit 1; }
echo "slurm test: Slurm $(sinfo -V | cut -d' ' -f2) up on $host, node $(sinfo -h -o '%N %T')"

failed=0
run() {  # run LABEL EXPECTED_STATUS srun-args...
  local label=$1 expect=$2
  shift 2
  local out=$dir/run.out start=$SECONDS
  timeout 120 srun --mpi="$srun_mpi" -n 4 --overcommit --kill-on-bad-exit=1 "$@" >"$out" 2>&1
  local status=$? elapsed=$((SECONDS - start))
  if [ "$expect" = 0 ] && [ $status -ne 0 ]; then
    cat "$out" >&2
    fail "$label: srun exited $status"
    return 1
  fi
  if [ "$expect" != 0 ] && { [ $status -eq 0 ] || [ $status -eq 124 ] || [ $elapsed -gt 60 ]; }; then
    cat "$out" >&2
    fail "$label: expected the job to fail at once, got status $status after ${elapsed}s"
    return 1
  fi
  echo "ok: $label (status $status, ${elapsed}s)"
  return 0
}
# Forced to PMIx: a missing PMIx server must fail, not run 4 singletons.
export GASKET_BOOTSTRAP=pmix
srun_mpi=pmix
if run "cluster_probe, direct path" 0 "$probe" 4 1; then
  [ "$(grep -c ': ok$' "$dir/run.out")" -eq 4 ] || { cat "$dir/run.out" >&2; fail "cluster_probe: not 4 PEs reported ok"; }
fi
run "cluster_probe over pciddc tcp" 0 env GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=tcp GASKET_LOCAL=backend "$probe" 4 1
run "cluster_probe over ucx tcp" 0 env GASKET_TRANSPORT=ucx UCX_TLS=self,tcp GASKET_LOCAL=backend "$probe" 4 1
if run "PMIx_Abort ends the job" 3 "$probe" 4 1 abort; then
  grep -q "PE 1 aborted with code 3" "$dir/run.out" || { cat "$dir/run.out" >&2; fail "abort: no 'PE 1 aborted with code 3' line"; }
fi
for p in "${programs[@]}"; do
  run "$(basename "$p") on 4 PEs" 0 "$p"
  run "$(basename "$p") on 4 PEs over pciddc tcp" 0 env GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=tcp GASKET_LOCAL=backend "$p"
done
if [ -n "$spawn" ]; then
  run "MPI_Comm_spawn under srun: MPI_ERR_SPAWN on every rank and errcode" 0 "$spawn" --refused
  if run "MPI_Comm_spawn under srun with MPI_ERRORS_ARE_FATAL ends the job" 1 "$spawn" --refused-fatal; then
    grep -q "PMIx_Spawn (PMIx namespace .*) failed: NOT-SUPPORTED" "$dir/run.out" ||
      { cat "$dir/run.out" >&2; fail "spawn under srun: the error does not name PMIx_Spawn's NOT-SUPPORTED"; }
  fi
  export GASKET_NAME_DIR=$dir/names
  timeout 120 srun --mpi=pmix -n 2 --overcommit "$ports" server 3 >"$dir/server.out" 2>&1 &
  server=$!
  timeout 120 srun --mpi=pmix -n 3 --overcommit "$ports" client 2 >"$dir/client.out" 2>&1
  client_status=$?
  wait $server
  server_status=$?
  if [ $client_status -ne 0 ] || [ $server_status -ne 0 ] || ! grep -q "dynproc ports server: OK" "$dir/server.out" ||
    ! grep -q "dynproc ports client: OK" "$dir/client.out"; then
    cat "$dir/server.out" "$dir/client.out" >&2
    fail "two srun jobs meeting by name: server status $server_status, client status $client_status"
  else
    echo "ok: two srun jobs (2 and 3 PEs) meet by name and connect"
  fi
  unset GASKET_NAME_DIR
fi
# Slurm's PMI-2 plugin answers PMI-1 clients too: the PMI bootstrap, forced as PMIx was above.
export GASKET_BOOTSTRAP=pmi
srun_mpi=pmi2
if run "cluster_probe under srun --mpi=pmi2" 0 "$probe" 4 1; then
  [ "$(grep -c ': ok$' "$dir/run.out")" -eq 4 ] || { cat "$dir/run.out" >&2; fail "cluster_probe (pmi2): not 4 PEs reported ok"; }
fi
run "cluster_probe under srun --mpi=pmi2 over ucx tcp" 0 env GASKET_TRANSPORT=ucx UCX_TLS=self,tcp GASKET_LOCAL=backend "$probe" 4 1
if run "PMI abort ends the srun --mpi=pmi2 job" 3 "$probe" 4 1 abort; then
  grep -q "PE 1 aborted with code 3" "$dir/run.out" || { cat "$dir/run.out" >&2; fail "abort (pmi2): no 'PE 1 aborted with code 3' line"; }
fi
for p in "${programs[@]}"; do
  case $p in */mpi/p2p_basic | */shmem/collectives) run "$(basename "$p") on 4 PEs under srun --mpi=pmi2" 0 "$p" ;; esac
done
[ $failed -eq 0 ] || { show_logs; exit 1; }
echo "slurm test: all passed"
