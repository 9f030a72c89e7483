#!/usr/bin/env bash
# Data-parallel training, side by side (issue 7): PyTorch DDP on gloo (CPU) and Reactive Collectives'
# DataParallelTraining, same MLP (32-128-128-8), same per-rank batch (32), same number of ranks, run
# alternately ROUNDS times in one session. Prints one JSON line per run: ms_per_step, comm_share.
#
#   perf/scripts/ddp_compare.sh                 # 2 ranks, 3000 steps of which the first 1000 untimed, 3 rounds
#   NPROC=2 STEPS=4000 WARMUP=1000 ROUNDS=5 perf/scripts/ddp_compare.sh
# Both sides time the same steps: the first WARMUP steps are untimed on both (the JVM compiles the
# step meanwhile; PyTorch needs no JIT but gets the same protocol).
# Each round runs: torch DDP, Java bucketed (DDP-style reducer, all-reduce hook), Java streaming
# (allReduceStream per layer). EXTRA adds options to both Java runs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NPROC="${NPROC:-2}"
STEPS="${STEPS:-3000}"
WARMUP="${WARMUP:-1000}"
ROUNDS="${ROUNDS:-3}"
PY="${PYTHON:-/usr/bin/python3}"
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$ROOT/bin/collectives-run" --help >/dev/null  # build once, outside the timed runs
for ((i = 1; i <= ROUNDS; i++)); do
  "$PY" "$ROOT/perf/scripts/torch_ddp_bench.py" --nproc "$NPROC" --steps "$STEPS" --warmup "$WARMUP" --json
  for mode in "" "--streaming"; do
    "$ROOT/bin/collectives-run" --nproc-per-node "$NPROC" -- io.reactivecollectives.samples.train.DataParallelTraining \
        --steps "$STEPS" --warmup-steps "$WARMUP" --no-progress --json $mode ${EXTRA:-} | sed -n 's/^\[rank 0\] \({.*\)/\1/p'
  done
done
