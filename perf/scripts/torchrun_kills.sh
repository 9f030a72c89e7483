#!/usr/bin/env bash
# Issue 40's fault run on the PyTorch side: PyTorch DDP (gloo) training of the main job's MLP on 4
# workers under `torchrun --max_restarts 3` (perf/scripts/ddp/torchrun_elastic_train.py: checkpoint
# every CKPT_EVERY steps, resume from it on every restart), with the worker of RANK=2 killed (SIGKILL)
# once rank 0 printed KILL1_AT of the steps and the worker of RANK=0 once it printed KILL2_AT: the
# schedule of perf/scripts/elastic_kills.sh. torchrun restarts the whole worker group on a failure.
# Prints the job's output, each kill's recovery, the exit code and the wall time. MODE=none kills nothing.
#   MODE=kill|none STEPS=6000 perf/scripts/torchrun_kills.sh
#   CKPT_EVERY (default STEPS/20 = the progress-line cadence), MONITOR_INTERVAL (default: torchrun's, 5 s),
#   PYTHON (default /usr/bin/python3), TORCHRUN (default /usr/bin/torchrun), OPENBLAS (default below; BLAS=ref
#   keeps Debian's reference libblas, which makes this MLP's step ~3.5x slower: perf/scripts/ddp/README.md "BLAS")
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MODE="${MODE:-kill}"
STEPS="${STEPS:-6000}"
EVERY=$((STEPS / 20))
CKPT_EVERY="${CKPT_EVERY:-$EVERY}"
KILL1_AT=$((STEPS * 30 / 100))
KILL2_AT=$((STEPS * 60 / 100))
PY="${PYTHON:-/usr/bin/python3}"
TORCHRUN="${TORCHRUN:-/usr/bin/torchrun}"
OPENBLAS="${OPENBLAS:-/tmp/openblas/root/usr/lib/x86_64-linux-gnu/openblas-serial}"
if [[ "${BLAS:-openblas}" != ref ]]; then
  [[ -d "$OPENBLAS" ]] || { echo "no OpenBLAS at $OPENBLAS (see perf/scripts/ddp/README.md, BLAS; or BLAS=ref)" >&2; exit 2; }
  export LD_LIBRARY_PATH="$OPENBLAS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
log="$(mktemp)"
run_dir="$(mktemp -d)"
trap 'rm -rf "$log" "$run_dir"' EXIT
# torch 1.13 under Python 3.11 cannot parse torchrun's default "--redirects 0"/"--tee 0" (Std.NONE is not
# iterated in a Flag enum): redirect the workers' stderr to torchrun's log files and tee it back instead
# (as TorchrunTest does); stdout, which carries rank 0's progress lines, stays inherited.
monitor=()
[[ -n "${MONITOR_INTERVAL:-}" ]] && monitor=(--monitor_interval "$MONITOR_INTERVAL")
cmd=("$TORCHRUN" --nnodes 1 --nproc_per_node 4 --max_restarts 3 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:0
     --redirects 2 --tee 2 "${monitor[@]}" "$ROOT/perf/scripts/ddp/torchrun_elastic_train.py"
     --steps "$STEPS" --log-every "$EVERY" --checkpoint-every "$CKPT_EVERY" --run-dir "$run_dir")
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); torch $("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null)"
echo "# ${cmd[*]}"
start=$(date +%s.%N)
"${cmd[@]}" > "$log" 2>&1 &
job=$!
rank_pid() {   # the worker (a child of the torchrun agent) whose environment says RANK=$1, the newest one
  for p in $(ps -o pid= --ppid "$job" --sort=start_time); do
    tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "RANK=$1" && echo "$p"
  done | tail -1
}
reached() { grep -q "^step *$1/$STEPS " "$log"; }
signal() {   # rank, when (step)
  until reached "$2"; do kill -0 "$job" 2>/dev/null || return; sleep 0.05; done
  local pid; pid="$(rank_pid "$1")"
  [[ -z "$pid" ]] && { echo "# no worker with RANK=$1 found at step $2"; return; }
  local at; at=$(date +%s%3N)
  kill -KILL "$pid"
  echo "# $(printf '%.2f' "$(echo "$at / 1000 - $start" | bc -l)") s: SIGKILL rank $1 (pid $pid) at step $2 (at $at ms)"
}
kills=""
if [[ "$MODE" == kill ]]; then
  kills+="$(signal 2 "$KILL1_AT")"$'\n'
  kills+="$(signal 0 "$KILL2_AT")"$'\n'
  echo -n "$kills"
fi
wait "$job"; code=$?
end=$(date +%s.%N)
cat "$log"
# each kill: the next attempt's processes started (torchrun saw the failure, stopped the group and
# started a new one), their start line (after `import torch` and the checkpoint load), its group up, back at the step where the killed
# attempt was (recovery), the next progress line beyond the kill's step, and the steps redone
summary="$(grep '^steps executed:' "$log")"
while read -r step k; do
  [[ -z "$k" ]] && continue
  start_line=$(grep -E '^start attempt=[0-9]+ resumed_from=[0-9]+ at [0-9]+ ms' "$log" | awk -v k="$k" '$5 > k' | head -1)
  [[ -z "$start_line" ]] && { echo "# kill at $k ms: no restart seen"; continue; }
  a=$(sed -E 's/^start attempt=([0-9]+).*/\1/' <<< "$start_line")
  resumed=$(sed -E 's/.*resumed_from=([0-9]+).*/\1/' <<< "$start_line")
  t_start=$(awk '{print $5}' <<< "$start_line")
  t_spawn=$(grep -oE 'process started at [0-9]+' <<< "$start_line" | tr -dc '0-9')
  t_ready=$(grep -E "^ready attempt=$a:" "$log" | grep -oE 'at [0-9]+ ms' | tr -dc '0-9')
  caught=$(grep -E "^caught up attempt=$a:" "$log")
  t_caught=$(grep -oE 'at [0-9]+ ms' <<< "$caught" | tr -dc '0-9')
  was=$(grep -oE 'step [0-9]+ \(' <<< "$caught" | tr -dc '0-9')
  next=$(grep -E "^step +[0-9]+/$STEPS .* ms \(attempt $a\)" "$log" | awk -v s="$step" '{split($2, n, "/"); if (n[1] + 0 > s) print}' | head -1)
  next_step=$(awk '{split($2, n, "/"); print n[1]}' <<< "$next")
  t_next=$(grep -oE 'at [0-9]+ ms' <<< "$next" | tr -dc '0-9')
  prev_last=$(grep -oE "attempt $((a - 1)): [0-9]+\.\.[0-9]+" <<< "$summary" | sed -E 's/.*\.\.//')
  echo "# kill at step $step ($k ms): attempt $a's processes started +$((t_spawn - k)) ms, torch imported and checkpoint loaded +$((t_start - k)) ms (resumed_from $resumed), group up +$((${t_ready:-0} - k)) ms," \
       "back at step ${was:-?} where the killed attempt was +$((${t_caught:-0} - k)) ms, next progress line (step ${next_step:-?}) +$((${t_next:-0} - k)) ms;" \
       "steps lost (redone): $(( ${prev_last:-0} - resumed ))"
done < <(grep -oE 'at step [0-9]+ \(at [0-9]+ ms\)' <<< "$kills" | tr -dc '0-9 \n' | awk '{print $1, $2}')
echo "# mode $MODE, $STEPS steps, checkpoint every $CKPT_EVERY steps: exit code $code, wall $(printf '%.2f' "$(echo "$end - $start" | bc)") s"
