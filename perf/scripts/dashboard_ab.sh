#!/usr/bin/env bash
# The dashboard's cost on the data path (issue 41): alternating rounds of all_reduce at 4 B and 64 MiB,
# 2 ranks, over shared memory and over TCP (shared memory and Unix sockets off), for
#   base    another build (BASE_DIR: a worktree of the commit before the dashboard, e.g.
#           git worktree add /tmp/base41 8f54b75), no dashboard
#   off     this build, no dashboard (the per-peer byte meters are on the data path either way)
#   on      this build, RC_DASHBOARD on every rank, nobody reading it
#   polled  this build, RC_DASHBOARD on, and /api/job read every 500 ms (as the page does) meanwhile
# Raw rows "label transport round bytes time_us busbw" (nccl-tests' out-of-place columns) go to OUT
# (default perf/out/dashboard_ab.txt); TRANSPORTS and SIZES narrow the runs (defaults "shm tcp", "4 64M"); then perf/scripts/dashboard_ab_summary.py prints medians and ratios.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BASE_DIR="${BASE_DIR:?set BASE_DIR to a checkout of the build to compare with}"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-$ROOT/perf/out/dashboard_ab.txt}"
PORT="${PORT:-18470}"
LABELS="${LABELS:-base off on polled}"
TRANSPORTS="${TRANSPORTS:-shm tcp}"
SIZES="${SIZES:-4 64M}"
mkdir -p "$(dirname "$OUT")"; : > "$OUT"
run() { # label transport dir
  local label=$1 transport=$2 dir=$3 opts="" poller=""
  [[ $transport == tcp ]] && opts="-Drc.transport.sharedMemory=false -Drc.transport.unixSockets=false"
  local dash=""
  [[ $label == on || $label == polled ]] && dash="127.0.0.1:$PORT"
  if [[ $label == polled ]]; then
    ( while :; do curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/api/job"; sleep 0.5; done ) &
    poller=$!
  fi
  for size in $SIZES; do
    range="--min $size --max $size"
    # shellcheck disable=SC2086
    RC_DASHBOARD="$dash" RC_RANK_JAVA_OPTS="$opts" "$dir/bin/collectives-perf" --op all_reduce --world 2 $range \
        --repeat 3 2>/dev/null \
      | awk '$1 ~ /^[0-9]+$/ && NF >= 13 {print $1, $6, $8}' \
      | sed "s/^/$label $transport r$round /" >> "$OUT"
  done
  [[ -n $poller ]] && { kill "$poller"; wait "$poller" 2>/dev/null; }
  return 0
}
for round in $(seq 1 "$ROUNDS"); do
  for transport in $TRANSPORTS; do
    for label in $LABELS; do
      case "$label" in
        base) run base "$transport" "$BASE_DIR" ;;
        *) run "$label" "$transport" "$ROOT" ;;
      esac
    done
  done
done
echo "# done $(date -u)" >> "$OUT"
