#!/usr/bin/env bash
# Issue 40's fault run: the main job on 4 ranks under `collectives-run --max-restarts 3`. MODE=kill:
# rank 2 killed (SIGKILL) once rank 0 printed 30% of the steps and rank 0 at 60%; MODE=stop: rank
# STOP_RANK (default 0) stopped (SIGSTOP) for STOP_SECONDS (default 75) at 30%, then continued;
# MODE=none: nothing (the baseline). Prints the job's output, its exit code, the wall time and, per
# kill, the time until the group was back at 4 ranks.
# ENGINE=djl runs the DJL main job instead (the tiny encoder unless ARGS says otherwise), through
# samples-djl's class path (built by bin/collectives-train --engine djl).
#   MODE=kill|stop|none STEPS=6000 [ENGINE=djl] perf/scripts/elastic_kills.sh
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MODE="${MODE:-kill}"
ENGINE="${ENGINE:-mlp}"
if [[ "$ENGINE" == djl ]]; then
  "$ROOT/bin/collectives-train" --engine djl --help > /dev/null 2>&1   # builds samples-djl and its class path if needed
  CP_FILE="$ROOT/samples-djl/target/collectives-run.classpath"
  JAR="$(ls "$ROOT"/samples-djl/target/samples-djl-*.jar | grep -v -e '-sources' -e '-javadoc' -e '-tests' | head -1)"
  MAIN=io.reactivecollectives.samples.djl.DjlTraining
  LAUNCH=(--classpath "$JAR:$(cat "$CP_FILE")")
  read -r -a EXTRA <<< "${ARGS:---preset tiny --batch 8 --warmup-steps 0}"
else
  MAIN=io.reactivecollectives.samples.train.DataParallelTraining
  LAUNCH=()
  read -r -a EXTRA <<< "${ARGS:-}"
fi
STEPS="${STEPS:-6000}"
EVERY=$((STEPS / 20))
KILL1_AT=$((STEPS * 30 / 100))
KILL2_AT=$((STEPS * 60 / 100))
STOP_SECONDS="${STOP_SECONDS:-75}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rank_pid() {   # the JVM whose environment says RANK=$1 (the newest one: a restarted rank is a new process)
  for p in $(pgrep -f "$MAIN" | sort -n); do
    [[ "$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -x "RANK=$1")" ]] && [[ "$(cat /proc/$p/comm)" == java ]] && echo "$p"
  done | tail -1
}
reached() { grep -q "step *$1/$STEPS" "$log"; }
start=$(date +%s.%N)
"$ROOT/bin/collectives-run" --nproc-per-node 4 --max-restarts 3 "${LAUNCH[@]}" -- "$MAIN" \
    --steps "$STEPS" --log-every "$EVERY" "${EXTRA[@]}" > "$log" 2>&1 &
job=$!
signal() {   # rank, when (step)
  until reached "$2"; do kill -0 "$job" 2>/dev/null || return; sleep 0.05; done
  local pid; pid="$(rank_pid "$1")"
  local at; at=$(date +%s.%N)
  case "$MODE" in
    kill) kill -KILL "$pid"; echo "# $(printf '%.2f' "$(echo "$at - $start" | bc)") s: SIGKILL rank $1 (pid $pid) at step $2 (at $(printf '%.0f' "$(echo "$at * 1000" | bc)") ms)" ;;
    stop) kill -STOP "$pid"; echo "# $(printf '%.2f' "$(echo "$at - $start" | bc)") s: SIGSTOP rank $1 (pid $pid) for $STOP_SECONDS s at step $2 (at $(printf '%.0f' "$(echo "$at * 1000" | bc)") ms)"
          (sleep "$STOP_SECONDS"; kill -CONT "$pid" 2>/dev/null) & ;;
  esac
}
kills=""
if [[ "$MODE" != none ]]; then
  if [[ "$MODE" == kill ]]; then
    kills+="$(signal 2 "$KILL1_AT")"$'\n'
    kills+="$(signal 0 "$KILL2_AT")"$'\n'
  else
    kills+="$(signal "${STOP_RANK:-0}" "$KILL1_AT")"$'\n'
  fi
  echo -n "$kills"
fi
wait "$job"; code=$?
end=$(date +%s.%N)
grep -v -e ' INFO ' -e '^\[rank [0-9]\] *at ' "$log"
# from each kill to the first generation back at 4 ranks after it
for k in $(grep -o 'SIG[A-Z]* rank [0-9] (pid [0-9]*)[^(]*at step [0-9]* (at [0-9]* ms)' <<< "$kills" | grep -o '(at [0-9]*' | tr -dc '0-9\n'); do
  back=$(grep -o 'grow (joined \[[0-9, ]*\]) 4 ranks at [0-9]* ms' "$log" | grep -o '[0-9]* ms' | tr -dc '0-9\n' | awk -v k="$k" '$1 > k' | head -1)
  [[ -n "$back" ]] && echo "# kill at $k ms: back at 4 ranks $((back - k)) ms later"
done
echo "# engine $ENGINE, mode $MODE, $STEPS steps: exit code $code, wall $(printf '%.2f' "$(echo "$end - $start" | bc)") s"
