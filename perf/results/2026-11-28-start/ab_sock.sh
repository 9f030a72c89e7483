#!/bin/bash
R=$1; cd /work/main
for ((r=1;r<=R;r++)); do for b in 64M 1M; do for v in v0 sock; do
  f=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json; [ $v = sock ] && f=/tmp/wc/sockc1.json
  /usr/bin/time -f "%U %S" -o /tmp/wc/t.$$ env RC_RANK_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=$f -Drc.transport.sharedMemory=false" timeout 300 bin/collectives-perf all_reduce --world 2 -b $b -e $b --repeat 9 2>/dev/null | awk -v v=$v '$1=="all_reduce"{printf "%s %s %s %s ", v, $3, $4, $6}'; echo " cpu $(cat /tmp/wc/t.$$)"
done; done; done
