#!/bin/bash
# run.sh OUTDIR ROUNDS SECS WORLD "name=opts" ... : alternating warm-up curves, our ranks only
out=$1; rounds=$2; secs=$3; world=$4; shift 4
mkdir -p $out; cd /work/main; CP=$(cat /tmp/cp.txt)
for r in $(seq 1 $rounds); do for v in "$@"; do
  name=${v%%=*}; opts=${v#*=}
  export START_MS=$(date +%s%3N)
  for l in $(seq 0 $((world-1))); do RANK=$l LOCAL_RANK=$l WORLD_SIZE=$world LOCAL_WORLD_SIZE=$world MASTER_ADDR=127.0.0.1 MASTER_PORT=29730 java $opts -cp $CP io.reactivecollectives.perf.WarmupCurve 67108864 $secs 2>$out/$name-r$r.err & done | grep -E '^(op|first_op_s|cpu_ms_per_op) ' > $out/$name-r$r.txt; wait
done; done
python3 perf/scripts/warmup_summary.py $out | tail -n +1 | grep -E "^\||t90" 
