#!/usr/bin/env bash
# Issue 40 across hosts: the elastic main job on HOSTS (default 3) network-namespace hosts x 1 rank
# at 1 Gbit/s, each host's own collectives-run --max-restarts 3 (node 0's serves the store); at
# DOWN_AT seconds the last host's link goes down for DOWN_FOR seconds, then comes back. The other
# hosts shrink it out and train on; its rank, cut off, leaves the job, its agent restarts it, and
# once the link is up it joins again. Prints every host's output (prefixed h<i>), the link times
# and the exit code. Needs root (see netns_hosts.sh).
#   STEPS=12000 DOWN_AT=12 DOWN_FOR=20 perf/scripts/elastic_netns.sh
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOSTS="${HOSTS:-3}"
STEPS="${STEPS:-12000}"
DOWN_AT="${DOWN_AT:-12}"
DOWN_FOR="${DOWN_FOR:-20}"
"$ROOT/bin/collectives-run" --help > /dev/null 2>&1   # build once, outside the namespaces
last=$((HOSTS - 1))
cmd="cd '$ROOT'; if [ {host} = $last ]; then (sleep $DOWN_AT; ip link set eth0 down; echo \"LINK DOWN h{host} at \$(date +%s%3N) ms\"; sleep $DOWN_FOR; ip link set eth0 up; echo \"LINK UP h{host} at \$(date +%s%3N) ms\") & fi;
  exec bin/collectives-run --nproc-per-node 1 --nnodes {hosts} --node-rank {host} --master-addr h0 --master-port 29500 \
    --max-restarts 3 -- io.reactivecollectives.samples.train.DataParallelTraining --steps $STEPS --log-every $((STEPS / 20)) 2>&1 | sed 's/^/h{host} /'"
start=$(date +%s%3N)
"$ROOT/perf/scripts/netns_hosts.sh" --hosts "$HOSTS" --rate 1gbit --keep-going -- bash -c "$cmd" 2>&1 | grep -v ' INFO '
code=${PIPESTATUS[0]}
echo "# $HOSTS hosts x 1 rank, $STEPS steps, link of h$last down at ${DOWN_AT}s for ${DOWN_FOR}s: exit code $code, wall $(( $(date +%s%3N) - start )) ms"
