#!/bin/bash
# bindsmall.sh ROUNDS: collectives-perf with 4 ranks on the 2 processors, pollers bound (the new default) against
# unbound (-Drc.transport.shmBind=false), alternating: 4 B all-reduce and barrier, 1 MiB all-reduce (us, busbw)
cd "$(dirname "$0")/../../.."; D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"; LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
for r in $(seq 1 $1); do for v in bind nobind; do
  p=""; [ $v = nobind ] && p="-Drc.transport.shmBind=false"
  for spec in "all_reduce 4" "barrier 4" "all_reduce 1M" "broadcast 4"; do set -- $spec
    RC_RANK_JAVA_OPTS="$D $LEAN $p" timeout 300 bin/collectives-perf $1 --world 4 -b $2 -e $2 --repeat 5 2>/dev/null | awk -v v=$v -v op=$1 -v r=$r '$1==op{printf "%s %s r%s %s B %s us busbw %s\n", v, op, r, $2, $4, $6}'
  done
done; done
