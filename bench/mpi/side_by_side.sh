# Sourced by the side-by-side scripts (compare.sh, coll_compare.sh, rma_compare.sh): builds gasket's
# mpicc/mpiexec ($bin: their Bazel bin folder), makes a scratch folder $tmp, and runs a script's
# benchmark once per MPI implementation installed here.
# Environment: BAZEL (default bazel), BAZEL_OUTPUT_BASE (an output base to build in), JOB_LIMIT
# (seconds one job may run; its rows printed by then are kept and the rest shown as "-": MPICH
# busy-polls when oversubscribed and takes minutes per row at 8 and 16 ranks on 2 cores), ROUNDS
# (compare_columns: runs per job, medians).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel_cmd=(${BAZEL:-bazel})
[ -n "${BAZEL_OUTPUT_BASE:-}" ] && bazel_cmd+=(--output_base="$BAZEL_OUTPUT_BASE")
"${bazel_cmd[@]}" build -c opt //tools/mpicc:mpicc //tools/mpicc:mpiexec >&2
bin=$("${bazel_cmd[@]}" info -c opt bazel-bin 2>/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# each_implementation SCRIPT RANKS RUN: calls `RUN name ranks compile-command... -- launch-command...`
# for gasket, Open MPI and MPICH (those installed; a note for the others). Ranks are bound to cores
# when they fit, else the launchers are told to oversubscribe.
each_implementation() {
  local script=$1 n=$2 run=$3 bind_ompi=(--oversubscribe) bind_mpich=()
  if [ "$n" -le "$(nproc)" ]; then bind_ompi=(--bind-to core); bind_mpich=(-bind-to core); fi
  "$run" gasket "$n" "$bin/tools/mpicc/mpicc" -- "$bin/tools/mpicc/mpiexec" --quiet -n "$n"
  if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    "$run" openmpi "$n" mpicc.openmpi -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun.openmpi "${bind_ompi[@]}" -n "$n"
  else
    echo "$script: Open MPI not installed (apt-get install openmpi-bin libopenmpi-dev)" >&2
  fi
  if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
    "$run" mpich "$n" mpicc.mpich -- mpiexec.mpich "${bind_mpich[@]}" -n "$n"
  else
    echo "$script: MPICH not installed (apt-get install mpich libmpich-dev)" >&2
  fi
}

# split_command COMPILE... -- LAUNCH...: sets the caller's (local) arrays compile and launch.
split_command() {
  compile=() launch=()
  while [ "$1" != "--" ]; do compile+=("$1"); shift; done
  shift
  launch=("$@")
}

# compare_columns SCRIPT SOURCE UNIT FORMAT [ARGS...]: builds SOURCE with every implementation,
# runs it with ARGS at each rank count of $RANKS (default "2 4"), and prints one Markdown table:
# a row per "operation size value" line the program prints, a column per implementation and rank
# count (values printed with the Python FORMAT, e.g. .2f, in UNIT). With ROUNDS=K (default 1)
# every job runs K times, the implementations interleaved within each round, and a cell is the
# median of its K values (a single job can land in a slow mode for its whole life).
compare_columns() {
  local script=$1 source=$2 unit=$3 format=$4
  shift 4
  local program_args=("$@") columns=() n round
  declare -A outputs=()
  compare_run() {  # name, ranks, compile command..., --, launch command...
    local name=$1 n=$2 compile launch exe out
    shift 2
    split_command "$@"
    exe="$tmp/$(basename "$source" .c)_$name"
    if [ ! -x "$exe" ] && ! "${compile[@]}" -O2 -I. "$source" -o "$exe" 2>"$tmp/$name.err"; then
      echo "$script: building with $name failed: $(head -3 "$tmp/$name.err")" >&2
      return
    fi
    echo "$script: running $name on $n ranks (round $round)" >&2
    out="$tmp/$name.$n.$round.out"
    local limit=() status=0
    [ -n "${JOB_LIMIT:-}" ] && limit=(timeout --kill-after=10 "$JOB_LIMIT")
    "${limit[@]}" "${launch[@]}" "$exe" "${program_args[@]}" >"$out" 2>"$tmp/$name.$n.err" || status=$?
    if [ "$status" -eq 124 ] && grep -qv '^#' "$out"; then
      echo "$script: $name on $n ranks stopped after JOB_LIMIT=$JOB_LIMIT s; the rows it printed are kept" >&2
      status=0
    fi
    if [ "$status" -eq 0 ]; then
      [ -n "${outputs["$name $n"]:-}" ] || columns+=("$name $n")
      outputs["$name $n"]+="$out:"
    else
      echo "$script: $name on $n ranks failed: $(tail -3 "$tmp/$name.$n.err" "$out")" >&2
    fi
  }
  for round in $(seq 1 "${ROUNDS:-1}"); do
    for n in ${RANKS:-2 4}; do
      each_implementation "$script" "$n" compare_run
    done
  done
  [ ${#columns[@]} -gt 0 ] || { echo "$script: nothing ran" >&2; return 1; }
  local column_files=() c
  for c in "${columns[@]}"; do column_files+=("${outputs[$c]}"); done
  python3 - "$unit" "$format" "$(printf '%s,' "${columns[@]}")" "${column_files[@]}" <<'PY'
import statistics
import sys
unit, fmt = sys.argv[1], sys.argv[2]
columns = [c for c in sys.argv[3].split(",") if c]
tables = []
for paths in sys.argv[4:]:
    values = {}
    for path in [p for p in paths.split(":") if p]:
        for line in open(path):
            parts = line.split()
            if len(parts) == 3 and not line.startswith("#"):
                values.setdefault((parts[0], int(parts[1])), []).append(float(parts[2]))
    tables.append({k: statistics.median(v) for k, v in values.items()})
keys = []
for t in tables:
    for k in t:
        if k not in keys:
            keys.append(k)
print("| operation | bytes | " + " | ".join(f"{c.split()[0]} {c.split()[1]} ranks ({unit})" for c in columns) + " |")
print("|" + "---|" * (2 + len(columns)))
for k in keys:
    cells = [format(t[k], fmt) if k in t else "-" for t in tables]
    print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
PY
}
