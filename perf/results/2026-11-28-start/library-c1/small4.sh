#!/bin/bash
cd "$(dirname "$0")/../../../.."; LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
for r in 1 2 3; do for v in auto libc1; do
  f=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json; [ $v = libc1 ] && f=perf/results/2026-11-28-start/library-c1/library-c1.json
  for op in all_reduce barrier; do
    RC_RANK_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=$f $LEAN" timeout 300 bin/collectives-perf $op --world 4 -b 4 -e 4 --repeat 5 2>/dev/null | awk -v v=$v -v op=$op '$1==op{printf "%s %s %s %s\n", v, op, $2, $4}'
  done
done; done
