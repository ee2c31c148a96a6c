#!/usr/bin/env bash
# put_wait_jobs.sh JOBS PES "LABEL=COMMAND" ...: runs JOBS put/wait jobs of each command, the
# commands alternated job by job (one round = one job of each), and prints every job's figure,
# with the load average and the runnable/total task count after it, then per command the median, the range and how many jobs fell under 1 µs, 1-8 µs and 8 µs or
# more. The oversubscribed put/wait figure is bimodal per job (core/README.md "Measured: what the waiting policy trades"),
# so old and new builds are compared over many jobs, not over the samples of one.
# COMMAND is a put_wait launch without -n, e.g. "old=/tmp/gasketrun /tmp/put_wait_old 2000";
# PES is given as -n. The load average is printed before and after.
set -uo pipefail
jobs=$1 pes=$2
shift 2
labels=() commands=()
for spec in "$@"; do
  labels+=("${spec%%=*}")
  commands+=("${spec#*=}")
done
echo "# $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg); $jobs jobs x ${#labels[@]} commands, $pes PEs"
declare -A figures
for ((j = 0; j < jobs; ++j)); do
  for i in "${!labels[@]}"; do
    # The command's words: the launcher, then its program and arguments.
    read -r -a words <<<"${commands[$i]}"
    f=$("${words[0]}" -n "$pes" "${words[@]:1}" 2>&1 | sed -n 's/^put_wait 8 B: \([0-9.]*\) us.*/\1/p')
    figures[$i]+="${f:-fail} "
    echo "job $j ${labels[$i]} ${f:-fail} (load $(cut -d' ' -f1,4 /proc/loadavg))"
  done
done
echo "# $(date -u +%H:%M) load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!labels[@]}"; do
  echo "${figures[$i]}" | tr ' ' '\n' | grep -v '^$' | sort -g | awk -v l="${labels[$i]}" '
    { v[NR] = $1; if ($1 == "fail") fail++; else if ($1 < 1) a++; else if ($1 < 8) b++; else c++ }
    END { printf "%s: median %s [%s-%s], jobs <1 us %d, 1-8 us %d, >=8 us %d, failed %d\n",
                 l, v[int((NR + 1) / 2)], v[1], v[NR], a, b, c, fail }'
done
