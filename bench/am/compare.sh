#!/usr/bin/env bash
# gasket::am and MPI point to point (gasket's MPI, bench/mpi/pingpong) on each path of PATHS
# (default: local, pciddc-shm, ucx-shm, ucx-tcp; the environment of each from tests/paths.txt),
# then UCX's own active messages (ucx_perftest ucp_am_lat / ucp_am_bw) over self,sm and self,tcp
# (the transports of ucx-shm and ucx-tcp) — same machine, same run. Each prints its own table;
# ucx_perftest's figures are the medians of ROUNDS runs per size. ucp_am_bw's bandwidth and rate
# are its "overall" columns (the whole run: CSV fields 6 and 8); fields 5 and 7 are the last
# report interval only (ucx_perftest's moment_average). Each run streams about 1 GiB (at least
# 256 and at most 10^6 messages): a run of 10^4 small messages is a few ms, left to scheduling
# stalls on a shared machine.
#   bazel run //bench/am:compare [-- ROUNDS [PATHS...]]
set -eu
gasketrun=$1 am_bench=$2 pingpong=$3 paths_file=$4
rounds=${5:-5}
shift 5 2>/dev/null || shift $#
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(local pciddc-shm ucx-shm ucx-tcp)
command -v ucx_perftest >/dev/null || { echo "compare.sh: ucx_perftest not found (apt-get install ucx-utils)" >&2; exit 1; }
uptime

for path in "${paths[@]}"; do
  entry=$(grep -E "^${path}( |\$)" "$paths_file") || { echo "compare.sh: unknown path $path" >&2; exit 2; }
  (
    for assignment in ${entry#"$path"}; do export "${assignment?}"; done
    [ "$path" = local ] || export GASKET_LOCAL=backend
    echo "== gasket::am over $path"
    "$gasketrun" -n 2 "$am_bench"
    echo "== MPI ping-pong (gasket's MPI) over $path"
    "$gasketrun" -n 2 "$pingpong" --max 4194304
  )
  uptime
done

# perftest TEST SIZE ITERS -> perftest's CSV result line (client and server on loopback).
perftest() {
  local test=$1 size=$2 iters=$3 port=$(( 20000 + RANDOM % 20000 )) line="" tries=0
  ucx_perftest -p $port >/dev/null 2>&1 &
  local server=$!
  while [ $tries -lt 50 ]; do
    line=$(ucx_perftest 127.0.0.1 -p $port -t "$test" -s "$size" -n "$iters" -w 100 -v 2>/dev/null | tail -1) &&
      [[ "$line" == *,* ]] && break
    tries=$((tries + 1)); sleep 0.1
  done
  wait $server 2>/dev/null || true
  echo "$line"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

for tls in self,sm self,tcp; do
  export UCX_TLS=$tls
  echo "== ucx_perftest over $tls (medians of $rounds runs; latency is half a round trip; MB = 2^20 bytes)"
  printf "%9s %14s %16s %14s\n" "bytes" "ucp_am_lat_us" "ucp_am_bw_Mmsg_s" "ucp_am_bw_MB_s"
  for size in 8 64 512 1936 4096 16384 65536 262144 1048576 4194304; do
    lat_iters=$(( size >= 1048576 ? 200 : 10000 ))
    bw_iters=$(( (1 << 30) / size )); bw_iters=$(( bw_iters > 1000000 ? 1000000 : bw_iters < 256 ? 256 : bw_iters ))
    lat=() rate=() bw=()
    for r in $(seq "$rounds"); do
      # CSV: iterations, latency median/last interval/overall (us), bandwidth last interval/overall
      # (MB/s), rate last interval/overall (msg/s)
      l=$(perftest ucp_am_lat "$size" "$lat_iters"); lat+=("$(echo "$l" | cut -d, -f2)")
      b=$(perftest ucp_am_bw "$size" "$bw_iters"); bw+=("$(echo "$b" | cut -d, -f6)"); rate+=("$(echo "$b" | cut -d, -f8)")
    done
    printf "%9s %14s %16s %14s\n" "$size" "$(printf '%s\n' "${lat[@]}" | median)" \
      "$(printf '%s\n' "${rate[@]}" | median | awk '{printf "%.3f", $1 / 1e6}')" "$(printf '%s\n' "${bw[@]}" | median)"
  done
  uptime
done
