#!/usr/bin/env bash
# Issue 42's figures, side by side and alternating (ROUNDS times, default 3): all-gather of a 100 MiB
# object on 4 ranks (bytes, and a JSON list of strings) against PyTorch's all_gather_object (gloo) on
# the same objects, then keyed-map all-reduce of 1M keys per rank at 10%, 50% and 90% overlap with
# each algorithm, and PyTorch's naive keyed all-reduce (all_gather_object of dicts, then a merge). Raw output in $OUT (default perf/results/<date>-objects/). From the repository root;
# PyTorch from ../shared/peers/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-perf/results/$(date -u +%F)-objects}
mkdir -p "$OUT"
B=perf/scripts/object_bench.sh
for round in $(seq 1 "${ROUNDS:-3}"); do
  echo "## round $round: $(date -u '+%F %T UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
  $B allgather --world 4 --bytes 100M --rounds 2 --codec bytes 2>&1 | grep -v SLF4J | tee -a "$OUT/allgather-bytes.txt"
  $B torch --world 4 --bytes 100M --rounds 2 --kind bytes 2>&1 | tee -a "$OUT/torch-bytes.txt"
  $B allgather --world 4 --bytes 100M --rounds 2 --codec json 2>&1 | grep -v SLF4J | tee -a "$OUT/allgather-json.txt"
  $B torch --world 4 --bytes 100M --rounds 2 --kind strings 2>&1 | tee -a "$OUT/torch-strings.txt"
  $B torch --world 4 --kind keyed --keys 1000000 --overlap 0.1 --rounds 2 2>&1 | tee -a "$OUT/torch-keyed-0.1.txt"
  for overlap in 0.1 0.5 0.9; do
    $B keyed --world 4 --keys 1000000 --overlap "$overlap" --rounds 2 2>&1 | grep -v SLF4J | tee -a "$OUT/keyed-$overlap.txt"
  done
done
