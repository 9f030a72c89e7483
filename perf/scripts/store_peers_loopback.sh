#!/usr/bin/env bash
# Issue 40: what the replicated store costs, on one machine. Three collectives-run launchers on
# loopback (--nnodes 3, one rank each, the elastic main job under --max-restarts 3), the store either
# in node 0's launcher (STORE=agent: --master-addr/--master-port) or held by all three
# (STORE=peers: --store-peers, one Raft replica per launcher). MODE=none runs to the end;
# MODE=kill SIGKILLs node 0's launcher with its rank when rank 0 has printed step KILL_AT, and starts
# it again AGAIN_AFTER seconds later (STORE=peers only: with the agent store that loses the store).
# Prints each node's lines about generations and the end, and the wall time of the whole run.
#   STORE=agent|peers MODE=none|kill STEPS=20000 KILL_AT=6000 AGAIN_AFTER=2 perf/scripts/store_peers_loopback.sh
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
STORE="${STORE:-peers}"
MODE="${MODE:-none}"
STEPS="${STEPS:-20000}"
KILL_AT="${KILL_AT:-$((STEPS * 30 / 100))}"
AGAIN_AFTER="${AGAIN_AFTER:-2}"
"$ROOT/bin/collectives-run" --help > /dev/null 2>&1   # build once
work="$(mktemp -d)"
trap 'for p in $(jobs -p); do kill -KILL -- "-$p" 2>/dev/null; done; rm -rf "$work"' EXIT   # each launcher with its ranks (setsid: its own group)
base=$((30000 + RANDOM % 20000))
if [[ "$STORE" == peers ]]; then
  store="--store-peers 127.0.0.1:$base,127.0.0.1:$((base + 10)),127.0.0.1:$((base + 20))"
else
  store="--master-addr 127.0.0.1 --master-port $base"
fi
node() {   # node index, log file; sets pid
  setsid "$ROOT/bin/collectives-run" --nproc-per-node 1 --nnodes 3 --node-rank "$1" $store --max-restarts 3 -- \
      io.reactivecollectives.samples.train.DataParallelTraining --steps "$STEPS" --log-every $((STEPS / 20)) > "$2" 2>&1 &
  pid=$!
}
start=$(date +%s%3N)
pids=()
for i in 0 1 2; do node "$i" "$work/node$i.log"; pids+=("$pid"); done
if [[ "$MODE" == kill ]]; then
  until grep -qE "step +([0-9]+)/$STEPS" "$work/node0.log" 2>/dev/null \
      && (( $(grep -oE "step +[0-9]+/$STEPS" "$work/node0.log" | tail -1 | grep -oE '[0-9]+' | head -1) >= KILL_AT )); do
    sleep 0.05
  done
  kill -KILL -- "-${pids[0]}"
  echo "NODE 0 LOST at $(date +%s%3N) ms"
  sleep "$AGAIN_AFTER"
  echo "NODE 0 BACK at $(date +%s%3N) ms"
  node 0 "$work/node0-again.log"
  pids[0]="$pid"
fi
code=0
for p in "${pids[@]}"; do wait "$p"; c=$?; [[ $c -ne 0 && $c -ne 137 ]] && code=$c; done
end=$(date +%s%3N)
for f in "$work"/node*.log; do
  grep -E "generation [0-9]+: |joined the running|recovered at|each applied|identical|ms/step|leaves the job|exited" "$f" | sed "s/^/$(basename "$f" .log) /"
done
echo "# 3 launchers x 1 rank on loopback, $STEPS steps, STORE=$STORE MODE=$MODE: exit code $code, wall $((end - start)) ms"
