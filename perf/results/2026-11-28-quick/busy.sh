#!/bin/bash
# busy.sh WORLD "jvm opts": samples /proc/stat every 100 ms while WORLD ranks of WarmupCurve 64M run for 12 s;
# writes busy.txt (ms since start, % of the processors busy) and busy-r<rank>.txt (the ranks' rows) in the repository root
W=$1; OPTS=$2; cd "$(dirname "$0")/../../.."
CP="$(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1):$(cat perf/target/collectives-perf.classpath)"
( prev=($(head -1 /proc/stat)); t0=$(date +%s%3N)
  for i in $(seq 1 80); do sleep 0.1; cur=($(head -1 /proc/stat)); 
    idle=$(( (${cur[4]}+${cur[5]}) - (${prev[4]}+${prev[5]}) )); tot=0; for k in 1 2 3 4 5 6 7 8; do tot=$((tot + ${cur[$k]} - ${prev[$k]})); done
    echo "$(( $(date +%s%3N) - t0 )) $(( tot>0 ? 100*(tot-idle)/tot : 0 ))"; prev=("${cur[@]}"); done ) > busy.txt &
for l in $(seq 0 $((W-1))); do RANK=$l LOCAL_RANK=$l WORLD_SIZE=$W LOCAL_WORLD_SIZE=$W MASTER_ADDR=127.0.0.1 MASTER_PORT=29731 java $OPTS -cp $CP io.reactivecollectives.perf.WarmupCurve 64M 12 > busy-r$l.txt 2>&1 & done; wait
