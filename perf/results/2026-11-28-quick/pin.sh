#!/bin/bash
# pin.sh ROUNDS: 4 ranks x 64 MiB WarmupCurve for 20 s, whole JVMs pinned: adj (ranks 0,1 on cpu 0; 2,3 on cpu 1),
# alt (0,2 on cpu 0; 1,3 on cpu 1), none (unpinned); lean profile options; prints steady busbw of the last third
cd "$(dirname "$0")/../../.."; CP="$(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1):$(cat perf/target/collectives-perf.classpath)"
A="-XX:SharedArchiveFile=/tmp/rc17b.jsa"; D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"; LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
mkdir -p perf/results/2026-11-28-quick/poller-binding/taskset
for r in $(seq 1 $1); do for v in adj alt none; do
  for l in 0 1 2 3; do
    case $v in adj) c=$((l/2));; alt) c=$((l%2));; none) c="";; esac
    pre=""; [ -n "$c" ] && pre="taskset -c $c"
    RANK=$l LOCAL_RANK=$l WORLD_SIZE=4 LOCAL_WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=29741 $pre java $A $D $LEAN -cp "$CP" io.reactivecollectives.perf.WarmupCurve 64M 20 > perf/results/2026-11-28-quick/poller-binding/taskset/$v-r$r-rank$l.txt 2>&1 &
  done; wait
  grep -E '^(op|first_op_s|cpu_ms_per_op) ' perf/results/2026-11-28-quick/poller-binding/taskset/$v-r$r-rank0.txt > perf/results/2026-11-28-quick/poller-binding/taskset/$v-r$r.txt
  python3 -c "
import statistics
ops=[float(l.split()[4]) for l in open('perf/results/2026-11-28-quick/poller-binding/taskset/$v-r$r.txt') if l.startswith('op ')]
t=ops[len(ops)*2//3:]; print('$v r$r', len(ops), 'ops, steady', round(statistics.median(t),3), 'GB/s')"
done; done
