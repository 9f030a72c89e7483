#!/bin/bash
# warm.sh: the warm-up batches of 11-28 (evening): --jit quick's options (C1 only) beside the shipped profiles
# and gloo. The first three sets below ran first (16:11-16:30 UTC; one-host-4x64M is two sets of 2 rounds,
# renumbered r1-r4, run with the label c1 for quick), then the rest (16:47-17:05).
cd "$(dirname "$0")/../../.."; A="-XX:SharedArchiveFile=/tmp/rc17.jsa"; D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"
LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"; Q="-XX:TieredStopAtLevel=1"; O=perf/results/2026-11-28-quick
HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=20 OUT=$O/one-host-4x64M VARIANTS="lean=java $A $D $LEAN;quick=java $A $Q" perf/scripts/warmup_compare.sh
HOSTS=2 PER_HOST=2 RATE=1gbit ROUNDS=2 SECONDS_PER_RUN=25 OUT=$O/netns-2x2 VARIANTS="focused=java $A $D;quick=java $A $Q" perf/scripts/warmup_compare.sh
HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=20 OUT=$O/rerun/all-but-user-c1 VARIANTS="lean=java $A $D $LEAN;abu=java $A -XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=$O/rerun/all-but-user-c1/all-but-user-c1.json $LEAN;quick=java $A $Q" perf/scripts/warmup_compare.sh
HOSTS=0 WORLD=2 ROUNDS=2 SECONDS_PER_RUN=20 OUT=$O/one-host-2x64M VARIANTS="focused=java $A $D;quick=java $A $Q" perf/scripts/warmup_compare.sh > $O/one-host-2x64M.out 2>&1
HOSTS=0 WORLD=2 ROUNDS=2 SECONDS_PER_RUN=15 SIZE=1M OUT=$O/one-host-2x1M VARIANTS="focused=java $A $D;quick=java $A $Q" perf/scripts/warmup_compare.sh > $O/one-host-2x1M.out 2>&1
HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=15 SIZE=1M OUT=$O/one-host-4x1M VARIANTS="lean=java $A $D $LEAN;quick=java $A $Q" perf/scripts/warmup_compare.sh > $O/one-host-4x1M.out 2>&1
HOSTS=2 PER_HOST=2 RATE=1gbit ROUNDS=2 SECONDS_PER_RUN=60 OUT=$O/netns-2x2-60s VARIANTS="focused=java $A $D;quick=java $A $Q" perf/scripts/warmup_compare.sh > $O/netns-2x2-60s.out 2>&1
HOSTS=0 WORLD=2 ROUNDS=2 SECONDS_PER_RUN=20 OUT=$O/rerun/one-host-2x64M VARIANTS="focused=java $A $D;quick=java $A $Q" perf/scripts/warmup_compare.sh
HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=20 OUT=$O/poller-binding/one-host-4x64M-quick VARIANTS="lean=java $A $D $LEAN;quick=java $A $Q" perf/scripts/warmup_compare.sh   # 18:07, with the binding
