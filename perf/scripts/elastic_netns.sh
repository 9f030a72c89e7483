#!/usr/bin/env bash
# Issue 40 across hosts: the elastic main job on HOSTS (default 3) network-namespace hosts x 1 rank
# at 1 Gbit/s, each host's own collectives-run --max-restarts 3 (node 0's serves the store).
# MODE=link (default): at DOWN_AT seconds the last host's link goes down for DOWN_FOR seconds, then
# comes back. The other hosts shrink it out and train on; its rank, cut off, leaves the job, its
# agent restarts it, and once the link is up it joins again.
# MODE=host: at DOWN_AT seconds the last host loses its agent and its ranks at once (SIGKILL to the
# launcher's process group); DOWN_FOR seconds later its collectives-run is started again, the same
# command, and its ranks, finding the job running, join it.
# STORE=peers: every host's collectives-run holds a replica of the store (--store-peers h0:29500,...,
# Raft), so that LOST (default the last host; LOST=0 is the host that served the store alone before)
# may be any host.
# Prints every host's output (prefixed h<i>), the event times and the exit code. Needs root (see
# netns_hosts.sh).
#   MODE=link|host STORE=agent|peers LOST=<host> STEPS=40000 DOWN_AT=12 DOWN_FOR=20 perf/scripts/elastic_netns.sh
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOSTS="${HOSTS:-3}"
STEPS="${STEPS:-40000}"
MODE="${MODE:-link}"
DOWN_AT="${DOWN_AT:-12}"
DOWN_FOR="${DOWN_FOR:-20}"
"$ROOT/bin/collectives-run" --help > /dev/null 2>&1   # build once, outside the namespaces
last="${LOST:-$((HOSTS - 1))}"
store="--master-addr h0 --master-port 29500"
if [[ "${STORE:-agent}" == peers ]]; then
  store="--store-peers $(for ((h = 0; h < HOSTS; h++)); do printf 'h%d:29500,' "$h"; done | sed 's/,$//')"
fi
run="bin/collectives-run --nproc-per-node 1 --nnodes {hosts} --node-rank {host} $store \
    --max-restarts 3 -- io.reactivecollectives.samples.train.DataParallelTraining --steps $STEPS --log-every $((STEPS / 20))"
if [[ "$MODE" == host ]]; then
  cmd="cd '$ROOT'; if [ {host} = $last ]; then setsid $run > >(sed 's/^/h{host} /') 2>&1 & agent=\$!; sleep $DOWN_AT;
    kill -KILL -- -\$agent; echo \"HOST LOST h{host} at \$(date +%s%3N) ms\"; sleep $DOWN_FOR;
    echo \"HOST BACK h{host} at \$(date +%s%3N) ms\"; fi; exec $run 2>&1 | sed 's/^/h{host} /'"
else
  cmd="cd '$ROOT'; if [ {host} = $last ]; then (sleep $DOWN_AT; ip link set eth0 down; echo \"LINK DOWN h{host} at \$(date +%s%3N) ms\"; sleep $DOWN_FOR; ip link set eth0 up; echo \"LINK UP h{host} at \$(date +%s%3N) ms\") & fi;
    exec $run 2>&1 | sed 's/^/h{host} /'"
fi
start=$(date +%s%3N)
"$ROOT/perf/scripts/netns_hosts.sh" --hosts "$HOSTS" --rate 1gbit --keep-going -- bash -c "$cmd" 2>&1 | grep -v ' INFO '
code=${PIPESTATUS[0]}
echo "# $HOSTS hosts x 1 rank, $STEPS steps, MODE=$MODE STORE=${STORE:-agent}: h$last lost at ${DOWN_AT}s for ${DOWN_FOR}s: exit code $code, wall $(( $(date +%s%3N) - start )) ms"
