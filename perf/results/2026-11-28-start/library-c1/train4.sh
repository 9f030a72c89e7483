#!/bin/bash
# train4.sh ROUNDS: the main job on 4 ranks (more than the 2 processors, so --jit auto is lean), the library
# left to C1 (new: lean inlining with library-c1.json, the uncommitted lean profile of that hour) against the
# shipped lean profile (old: lean inlining with the focused directives)
cd "$(dirname "$0")/../../../.."; F=perf/results/2026-11-28-start/library-c1/library-c1.json
for r in $(seq 1 "$1"); do for v in new old; do
  a=(--jit lean); [ $v = new ] && a+=(--jvm-arg=-XX:+UnlockDiagnosticVMOptions --jvm-arg=-XX:CompilerDirectivesFile=$F)
  s=$(date +%s.%N); out=$(bin/collectives-run --nproc-per-node 4 "${a[@]}" -- io.reactivecollectives.samples.train.DataParallelTraining 2>&1); e=$(date +%s.%N)
  echo "$v r$r wall $(python3 -c "print(round($e-$s,2))") $(grep 'samples/s' <<< "$out" | grep -o '[0-9.]* ms/step') | $(grep -c 'parameters identical on all 4 ranks: yes' <<< "$out")"
done; done
