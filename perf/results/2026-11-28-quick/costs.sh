#!/bin/bash
# costs.sh ROUNDS: what --jit quick (C1 only) costs in the steady state, against --jit auto, alternating:
# the main job (2 and 4 ranks; ms/step, wall) and 4 B all-reduce and barrier latency (2 and 4 ranks)
cd "$(dirname "$0")/../../.."; D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"
LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
for r in $(seq 1 "$1"); do for v in quick auto; do
  for w in 2 4; do
    s=$(date +%s.%N); out=$(bin/collectives-run --nproc-per-node $w --jit $v -- io.reactivecollectives.samples.train.DataParallelTraining 2>&1); e=$(date +%s.%N)
    echo "train $v world $w r$r wall $(python3 -c "print(round($e-$s,2))") $(grep 'samples/s' <<< "$out" | grep -o '[0-9.]* ms/step') | $(grep -c "parameters identical on all $w ranks: yes" <<< "$out")"
    o="-XX:TieredStopAtLevel=1"; [ $v = auto ] && { o="$D"; [ $w = 4 ] && o="$D $LEAN"; }
    for op in all_reduce barrier; do
      RC_RANK_JAVA_OPTS="$o" timeout 300 bin/collectives-perf $op --world $w -b 4 -e 4 --repeat 5 2>/dev/null | awk -v v=$v -v op=$op -v w=$w -v r=$r '$1==op{printf "small %s %s world %s r%s %s B %s us\n", v, op, w, r, $2, $4}'
    done
  done
done; done
