#!/bin/bash
cd /work/main
D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"
LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
A="-XX:SharedArchiveFile=/tmp/rc2.jsa"
OUT=/tmp/wc/g4x64 HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=20 VARIANTS="lend=java $A $LEAN $D;copy=java $A $LEAN $D -Drc.transport.shmLendBytes=0" perf/scripts/warmup_compare.sh > /tmp/wc/g4x64.out 2>&1
OUT=/tmp/wc/g2x1 HOSTS=0 WORLD=2 SIZE=1M ROUNDS=2 SECONDS_PER_RUN=20 VARIANTS="lend=java $A $D;copy=java $A $D -Drc.transport.shmLendBytes=0" perf/scripts/warmup_compare.sh > /tmp/wc/g2x1.out 2>&1
OUT=/tmp/wc/gns HOSTS=2 PER_HOST=2 RATE=1gbit ROUNDS=2 SECONDS_PER_RUN=25 VARIANTS="lend=java $A $D;copy=java $A $D -Drc.transport.shmLendBytes=0" perf/scripts/warmup_compare.sh > /tmp/wc/gns.out 2>&1
echo alldone > /tmp/wc/sets.done
