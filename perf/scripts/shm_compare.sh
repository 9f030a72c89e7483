#!/usr/bin/env bash
# Shared memory inside a host (issue 19), all in one run on a quiet machine: peer_compare.sh with the
# library over shared memory (rc) and over Unix sockets (rc_unix) beside PyTorch gloo and Open MPI
# over TCP and shared memory, for all_reduce and broadcast (2 ranks), barrier (2 ranks) and
# all_reduce on 4 ranks; the machine's memcpy bandwidth; the main job's ms/step with and without
# shared memory, alternating. Results under OUT (default perf/out/shm-compare-<time>).
#   ROUNDS=3 perf/scripts/shm_compare.sh     # WARMUP=0 skips the warm-up runs (issue 22)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-$ROOT/perf/out/shm-compare-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"
"$ROOT/perf/scripts/memcpy_bench.sh" | tee "$OUT/memcpy.txt"
OUT="$OUT/world2" OPS="all_reduce broadcast" UNIX_TOO=1 ROUNDS="$ROUNDS" WORLD=2 "$ROOT/perf/scripts/peer_compare.sh"
OUT="$OUT/barrier" OPS="barrier" MAX=4 SIZES=4 UNIX_TOO=1 ROUNDS="$ROUNDS" WORLD=2 "$ROOT/perf/scripts/peer_compare.sh"
OUT="$OUT/world4" OPS="all_reduce" UNIX_TOO=1 ROUNDS="${ROUNDS4:-2}" WORLD=4 "$ROOT/perf/scripts/peer_compare.sh"
for ((r = 1; r <= ${TRAIN_ROUNDS:-3}; r++)); do
  for shm in true false; do
    /usr/bin/time -f "wall %e s" "$ROOT/bin/collectives-run" --nproc-per-node 2 --jvm-arg "-Drc.transport.sharedMemory=$shm" \
        -- io.reactivecollectives.samples.train.DataParallelTraining > "$OUT/train-shm-$shm-$r.txt" 2>&1
    echo "train shm=$shm round $r: $(grep -o '[0-9.]* ms/step |' "$OUT/train-shm-$shm-$r.txt" | tail -1) $(tail -1 "$OUT/train-shm-$shm-$r.txt")"
  done
done | tee "$OUT/train.txt"
# issue 22's warm-up and CPU figures where shared memory changes them: 2 and 4 ranks on loopback, 2 hosts x 2 ranks
if [[ "${WARMUP:-1}" == 1 ]]; then
  V='shm=java;unix=java -Drc.transport.sharedMemory=false'
  OUT="$OUT/warmup-loopback2" HOSTS=0 WORLD=2 ROUNDS="${WARMUP_ROUNDS:-2}" SECONDS_PER_RUN=25 VARIANTS="$V" \
      "$ROOT/perf/scripts/warmup_compare.sh"
  OUT="$OUT/warmup-loopback4" HOSTS=0 WORLD=4 ROUNDS="${WARMUP_ROUNDS:-2}" SECONDS_PER_RUN=25 VARIANTS="$V" \
      "$ROOT/perf/scripts/warmup_compare.sh"
  if [[ $(id -u) == 0 ]]; then
    OUT="$OUT/warmup-netns2x2" HOSTS=2 PER_HOST=2 ROUNDS="${WARMUP_ROUNDS:-2}" SECONDS_PER_RUN=25 VARIANTS="$V" \
        "$ROOT/perf/scripts/warmup_compare.sh"
  fi
fi
