#!/bin/bash
# bind.sh ROUNDS SIZE SECS: WORLD (default 4) ranks of WarmupCurve, lean profile options, pollers bound by local rank modulo the
# processors (bind, the new default) against unbound (nobind: -Drc.transport.shmBind=false), alternating;
# prints ops, the steady busbw (median of the last third) and the rank-0 CPU line
cd "$(dirname "$0")/../../.."; CP="$(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1):$(cat perf/target/collectives-perf.classpath)"
D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"; LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
O=${OUT:-perf/results/2026-11-28-quick/poller-binding/steady}; W=${WORLD:-4}; mkdir -p $O
for r in $(seq 1 $1); do for v in bind nobind; do
  p=""; [ $v = nobind ] && p="-Drc.transport.shmBind=false"
  for l in $(seq 0 $((W - 1))); do
    RANK=$l LOCAL_RANK=$l WORLD_SIZE=$W LOCAL_WORLD_SIZE=$W MASTER_ADDR=127.0.0.1 MASTER_PORT=29743 java $D $LEAN $p -cp "$CP" io.reactivecollectives.perf.WarmupCurve $2 $3 > $O/$v-r$r-rank$l.txt 2>&1 &
  done; wait
  grep -E '^(op|first_op_s|cpu_ms_per_op) ' $O/$v-r$r-rank0.txt > $O/$v-r$r.txt
  python3 -c "
import statistics
ops=[float(l.split()[4]) for l in open('$O/$v-r$r.txt') if l.startswith('op ')]
t=ops[len(ops)*2//3:]; print('$v r$r', len(ops), 'ops, steady', round(statistics.median(t),3), 'GB/s')"
done; done
