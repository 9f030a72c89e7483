#!/usr/bin/env bash
# Many rank processes on one machine against PyTorch gloo (issue 44): ROUNDS rounds (default 3), each
# running bin/collectives-perf all_reduce --world WORLD (default 32) and then gloo's
# ../shared/peers/torch_gloo_bench.py with the same world, 4 B .. MAX (default 1 MiB) x4, results checked
# (-c 1); ours after its first size's warm-up waited up to SETTLE ms (default 120000) for every rank's JIT
# compilers to go quiet (32 JVMs on 2 processors compile for about two minutes). Beside the timings: each side's start-up (ours: JVM start to group formed, slowest rank, from
# --extended; gloo: the launch to rank 0's first line, which follows init_process_group) and the
# resident memory per rank process (sampled every second with ps, the largest mean over the run).
# The raw output goes to OUT (default perf/out/world-compare-<time>); summary.md holds the medians and
# ratios (perf/scripts/peer_compare_summary.py).
#
#   bash ../shared/peers/setup.sh                    # once per machine: torch (gloo)
#   perf/scripts/world_compare.sh                    # 32 ranks, 3 rounds
#   WORLD=16 ROUNDS=5 MAX=262144 perf/scripts/world_compare.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PEERS="${PEERS:-$ROOT/../shared/peers}"
[ -d "$PEERS" ] || PEERS=/work/shared/peers
ROUNDS="${ROUNDS:-3}"
WORLD="${WORLD:-32}"
MAX="${MAX:-1048576}"
SETTLE="${SETTLE:-120000}"
PY="${PYTHON:-/usr/bin/python3}"
OUT="${OUT:-$ROOT/perf/out/world-compare-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"

{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $(java -version 2>&1 | head -1); $("$PY" -c 'import torch; print("torch", torch.__version__)'); world $WORLD"
} | tee "$OUT/machine.txt"
"$ROOT/bin/collectives-perf" --help >/dev/null   # build once, outside the timed runs

# sample_rss PATTERN FILE: every second, the number of processes whose command line has PATTERN and their
# mean resident memory in MiB, one line per sample, until killed
sample_rss() {
  while true; do
    ps -eo rss=,args= | grep -F -- "$1" | grep -v grep \
        | awk '{n++; s+=$1} END {if (n) printf "%d %.0f\n", n, s/n/1024}' >> "$2" || true
    sleep 1
  done
}

# largest mean resident memory over the samples taken with all WORLD processes up
peak_rss() {
  awk -v w="$WORLD" '$1 >= w && $2 > m {m = $2} END {print m + 0}' "$1"
}

for ((r = 1; r <= ROUNDS; r++)); do
  echo "## round $r $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/startup.txt"
  sample_rss "io.reactivecollectives.perf.CollectivesPerf --collective" "$OUT/rss-rc-$r.txt" & sampler=$!
  "$ROOT/bin/collectives-perf" all_reduce --world "$WORLD" -b 4 -e "$MAX" -f 4 -c 1 --extended --settle-time-ms "$SETTLE" \
      > "$OUT/rc-all_reduce-$r.txt" 2> "$OUT/rc-stderr-$r.txt"
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  echo "rc    $(grep '^# start-up' "$OUT/rc-all_reduce-$r.txt" | sed 's/^# //'); sampled resident memory per rank $(peak_rss "$OUT/rss-rc-$r.txt") MiB" \
      | tee -a "$OUT/startup.txt"

  sample_rss "--multiprocessing-fork" "$OUT/rss-gloo-$r.txt" & sampler=$!
  t0=$(date +%s.%N); first=""
  while IFS= read -r line; do
    [ -z "$first" ] && first=$(date +%s.%N)
    echo "$line"
  done < <("$PY" "$PEERS/torch_gloo_bench.py" --world "$WORLD" --op all_reduce --min 4 --max "$MAX" --step 4 \
      --port $((20000 + RANDOM % 12000)) 2>/dev/null) > "$OUT/gloo-all_reduce-$r.txt"
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  echo "gloo  start-up $(echo "$first - $t0" | bc -l | xargs printf '%.2f') s (launch to rank 0's first line); sampled resident memory per rank $(peak_rss "$OUT/rss-gloo-$r.txt") MiB" \
      | tee -a "$OUT/startup.txt"
done
"$PY" "$ROOT/perf/scripts/peer_compare_summary.py" "$OUT" 4 16 64 256 1024 4096 16384 65536 262144 1048576 | tee "$OUT/summary.md"
