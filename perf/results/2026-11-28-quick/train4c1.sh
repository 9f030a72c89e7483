#!/bin/bash
# train4c1.sh ROUNDS: the main job on 4 ranks (more than the 2 processors, --jit auto is lean): C1 only
# (--jit default with -XX:TieredStopAtLevel=1) against the shipped lean profile, alternating
cd "$(dirname "$0")/../../.."
for r in $(seq 1 "$1"); do for v in c1 lean; do
  a=(--jit lean); [ $v = c1 ] && a=(--jit default --jvm-arg=-XX:TieredStopAtLevel=1)
  s=$(date +%s.%N); out=$(bin/collectives-run --nproc-per-node 4 "${a[@]}" -- io.reactivecollectives.samples.train.DataParallelTraining 2>&1); e=$(date +%s.%N)
  echo "$v r$r wall $(python3 -c "print(round($e-$s,2))") $(grep 'samples/s' <<< "$out" | grep -o '[0-9.]* ms/step') | $(grep -c 'parameters identical on all 4 ranks: yes' <<< "$out")"
done; done
