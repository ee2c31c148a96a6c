#!/usr/bin/env bash
# gasket over ucx next to raw UCP (ucx_perftest), same sizes, same machine, same run.
#   bazel run //bench/ucx:compare [-- [--rounds N] [--old PATH] shm|tcp ...]   (default: shm tcp)
# For each UCX_TLS (self,sm and self,tcp) it runs ucx_perftest's ucp_put_lat, ucp_get (one in
# flight), ucp_fadd (one in flight) and ucp_put_bw for every size, then ucx_bench through gasketrun
# with those figures as its reference; ucx_bench prints the table with the ratios. ucp_registered
# (raw UCP on memory registered like gasket's segments, not allocated by UCX) gives a second
# reference in the same run: what UCX itself costs on such memory.
# --old PATH: another build's ucx_bench (copied out of bazel-bin before a change) runs beside this
# one against the same reference, the order of the two alternating from round to round;
# --rounds N repeats everything N times (take medians across rounds on a shared machine).
set -eu
gasketrun=$1 bench=$2 registered=$3
shift 3
rounds=1 old=""
transports=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    *) transports+=("$1"); shift ;;
  esac
done
[ ${#transports[@]} -eq 0 ] && transports=(shm tcp)
[ -z "$old" ] || [ -x "$old" ] || { echo "compare.sh: --old $old is not an executable ucx_bench" >&2; exit 2; }
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

# put_bw SIZE ITERS -> the median of $stream_samples runs of ucp_put_bw (column 5: MB/s up to the
# last put, the final flush outside), as ucx_bench and ucp_registered take the median of as many
# samples of ITERS puts (measure.h kStreamSamples): one sample alone swings 2-10x on a shared machine.
# (measure.h beside the script in the source tree, or in the runfiles tree under `bazel run`.)
stream_samples=$(cat "$(dirname "$0")/measure.h" bench/ucx/measure.h 2>/dev/null |
  sed -n 's/^constexpr int kStreamSamples = \([0-9]*\);/\1/p' | head -1)
[ -n "$stream_samples" ] || { echo "compare.sh: kStreamSamples not found in measure.h" >&2; exit 1; }
put_bw_median() {
  for _ in $(seq 1 "$stream_samples"); do perftest ucp_put_bw "$1" "$2" | cut -d, -f5; done | sort -g | \
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# gasket's table for one build: LABEL BINARY
run_gasket() {
  echo "=== UCX_TLS=$tls, $1 ($2), round $round of $rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
  GASKET_TRANSPORT=ucx GASKET_LOCAL=backend "$gasketrun" -n 2 "$2" --max-iters $max_iters --reference "$ref" \
    --registered "$work/registered.$t"
  echo
}

for round in $(seq 1 "$rounds"); do
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
    echo "put_bw $s $(put_bw_median $s $n)" >>"$ref"
  done
  echo "fadd_lat 8 $(perftest ucp_fadd 8 $(iterations 8 $max_iters) -O 1 | cut -d, -f2)" >>"$ref"
  "$registered" --max-iters $max_iters >"$work/registered.$t"
  if [ -z "$old" ]; then
    run_gasket new "$bench"
  elif [ $((round % 2)) -eq 1 ]; then
    run_gasket new "$bench"
    run_gasket old "$old"
  else
    run_gasket old "$old"
    run_gasket new "$bench"
  fi
done
done
