#!/bin/bash
# train.sh ROUNDS: the main job, Netty's JFR events off (the new default) and on (--jvm-arg), alternating
cd "$(dirname "$0")/../../.."
for r in $(seq 1 "$1"); do for v in ${ORDER:-off on}; do
  a=(); [ $v = on ] && a=(--jvm-arg=-Dio.netty.jfr.enabled=true)
  s=$(date +%s.%N); out=$(bin/collectives-run --nproc-per-node 2 "${a[@]}" -- io.reactivecollectives.samples.train.DataParallelTraining 2>&1); e=$(date +%s.%N)
  echo "$v r$r wall $(python3 -c "print(round($e-$s,2))") $(grep 'samples/s' <<< "$out" | grep -o '[0-9.]* ms/step') | $(grep -c 'parameters identical on all 2 ranks: yes' <<< "$out")"
done; done
