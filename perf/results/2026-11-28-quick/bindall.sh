#!/bin/bash
# bindall.sh: pollers bound by local rank modulo the processors (bind, the default since 11-28 evening) against
# unbound (nobind, -Drc.transport.shmBind=false): warm-up with gloo (4 ranks, 64 MiB and 1 MiB), the main job on
# 4 ranks (3 pairs) and small collectives (bindsmall.sh, 3 rounds); then, apart: WORLD=8 bind.sh 2 64M 25
cd "$(dirname "$0")/../../.."; O=${OUT:-perf/results/2026-11-28-quick/poller-binding}; mkdir -p $O
A="-XX:SharedArchiveFile=/tmp/rc17c.jsa"; D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"; LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=20 OUT=$O/one-host-4x64M VARIANTS="bind=java $A $D $LEAN;nobind=java $A $D $LEAN -Drc.transport.shmBind=false" perf/scripts/warmup_compare.sh > $O/one-host-4x64M.out 2>&1
HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=15 SIZE=1M OUT=$O/one-host-4x1M VARIANTS="bind=java $A $D $LEAN;nobind=java $A $D $LEAN -Drc.transport.shmBind=false" perf/scripts/warmup_compare.sh > $O/one-host-4x1M.out 2>&1
for r in 1 2 3; do for v in bind nobind; do
  a=(); [ $v = nobind ] && a=(--jvm-arg=-Drc.transport.shmBind=false)
  s=$(date +%s.%N); out=$(bin/collectives-run --nproc-per-node 4 "${a[@]}" -- io.reactivecollectives.samples.train.DataParallelTraining 2>&1); e=$(date +%s.%N)
  echo "$v r$r wall $(python3 -c "print(round($e-$s,2))") $(grep 'samples/s' <<< "$out" | grep -o '[0-9.]* ms/step') | $(grep -c 'parameters identical on all 4 ranks: yes' <<< "$out")"
done; done > $O/train4.txt
bash $O/../bindsmall.sh 3 > $O/small-4-ranks.txt 2>&1
