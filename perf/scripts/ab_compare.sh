#!/usr/bin/env bash
# Alternating rounds of another build (BASE_DIR: a worktree of an older commit, e.g.
#   git worktree add /tmp/base 2c815dd) and this one, with results on the event loop (the default)
# and on the library's threads: all_reduce and all_gather at 4-8 B, 1 MiB and 64 MiB, 2 ranks.
# LABELS picks the runs (default "base loop threads"), OPS the collectives (default "all_reduce all_gather"),
# WORLD the ranks (default 2), SMALL_ONLY=1 skips the 64 MiB runs.
# Prints raw rows "label round op bytes count time_us algbw busbw" to OUT (default perf/out/ab.txt): from
# nccl-tests' layout (collectives-perf now) the out-of-place columns, or the rows of an older build's layout.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BASE_DIR="${BASE_DIR:?set BASE_DIR to a checkout of the build to compare with}"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-$ROOT/perf/out/ab.txt}"
mkdir -p "$(dirname "$OUT")"; : > "$OUT"
run() { # label dir [extra options]
  local label=$1 dir=$2; shift 2
  for op in ${OPS:-all_reduce all_gather}; do
    ranges=("--min 4 --max 1M --step 262144"); [ "${SMALL_ONLY:-0}" = 1 ] || ranges+=("--min 64M --max 64M")
    for range in "${ranges[@]}"; do
      # shellcheck disable=SC2086
      "$dir/bin/collectives-perf" --op $op --world "${WORLD:-2}" $range --repeat 3 "$@" 2>/dev/null \
        | awk -v op=$op '$1 ~ /^[0-9]+$/ && NF >= 13 {print op, $1, $2, $6, $7, $8; next} $1 == op && $2 ~ /^[0-9]+$/' \
        | sed "s/^/$label r$round /" >> "$OUT"
    done
  done
}
LABELS="${LABELS:-base loop threads}"
for round in $(seq 1 "$ROUNDS"); do
  for label in $LABELS; do
    case "$label" in
      base) run base "$BASE_DIR" ;;
      loop) run loop "$ROOT" --results EVENT_LOOP ;;
      threads) run threads "$ROOT" --results LIBRARY_THREADS ;;
    esac
  done
done
echo "# done $(date -u)" >> "$OUT"
