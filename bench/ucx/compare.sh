#!/usr/bin/env bash
# gasket over ucx next to raw UCP (ucx_perftest), same sizes, same machine, same run.
#   bazel run //bench/ucx:compare [-- shm|tcp ...]        (default: shm tcp)
# For each UCX_TLS (self,sm and self,tcp) it runs ucx_perftest's ucp_put_lat, ucp_get (one in
# flight), ucp_fadd (one in flight) and ucp_put_bw for every size, then ucx_bench through gasketrun
# with those figures as its reference; ucx_bench prints the table with the ratios. ucp_registered
# (raw UCP on memory registered like gasket's segments, not allocated by UCX) gives a second
# reference in the same run: what UCX itself costs on such memory.
set -eu
gasketrun=$1 bench=$2 registered=$3
shift 3
transports=("$@")
[ ${#transports[@]} -eq 0 ] && transports=(shm tcp)
command -v ucx_perftest >/dev/null || { echo "compare.sh: ucx_perftest not found (apt-get install ucx-utils)" >&2; exit 1; }

sizes="8 64 512 4096 32768 262144 1048576 4194304"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Same iteration counts as ucx_bench: 256 MiB worth, between 20 and max_iters.
iterations() { local n=$(( (256 << 20) / $1 )); [ $n -gt $2 ] && n=$2; [ $n -lt 20 ] && n=20; echo $n; }

# perftest TEST SIZE ITERS EXTRA_ARGS... -> prints perftest's CSV result line.
perftest() {
  local test=$1 size=$2 iters=$3
  shift 3
  local warmup=$(( iters / 10 + 1 )); [ $warmup -gt 100 ] && warmup=100
  local port=$(( 20000 + RANDOM % 20000 ))
  ucx_perftest -p $port >"$work/server.log" 2>&1 &
  local server=$!
  local line="" tries=0
  while [ $tries -lt 50 ]; do
    line=$(ucx_perftest 127.0.0.1 -p $port -t "$test" -s "$size" -n "$iters" -w "$warmup" -v "$@" 2>/dev/null | tail -1) && \
      [[ "$line" == *,* ]] && break
    tries=$((tries + 1)); sleep 0.1
  done
  wait $server 2>/dev/null || true
  echo "$line"
}

for t in "${transports[@]}"; do
  case $t in
    shm) tls=self,sm max_iters=10000 ;;
    tcp) tls=self,tcp max_iters=2000 ;;
    *) echo "compare.sh: unknown transport '$t' (shm or tcp)" >&2; exit 2 ;;
  esac
  export UCX_TLS=$tls
  ref="$work/reference.$t"
  : >"$ref"
  for s in $sizes; do
    n=$(iterations $s $max_iters)
    echo "put_lat $s $(perftest ucp_put_lat $s $n | cut -d, -f2)" >>"$ref"
    echo "get_lat $s $(perftest ucp_get $s $n -O 1 | cut -d, -f2)" >>"$ref"
    echo "put_bw $s $(perftest ucp_put_bw $s $n | cut -d, -f5)" >>"$ref"
  done
  echo "fadd_lat 8 $(perftest ucp_fadd 8 $(iterations 8 $max_iters) -O 1 | cut -d, -f2)" >>"$ref"
  "$registered" --max-iters $max_iters >"$work/registered.$t"
  echo "=== UCX_TLS=$tls"
  GASKET_TRANSPORT=ucx GASKET_LOCAL=backend "$gasketrun" -n 2 "$bench" --max-iters $max_iters --reference "$ref" \
    --registered "$work/registered.$t"
  echo
done
