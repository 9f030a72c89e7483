#!/bin/bash
# nice_run.sh OUT ROUNDS SECS WORLD "name=PATTERN:NICE:opts" ... ; PATTERN '-' = none
out=$1; rounds=$2; secs=$3; world=$4; shift 4
mkdir -p $out; cd /work/main; CP=$(cat /tmp/cp.txt)
for r in $(seq 1 $rounds); do for v in "$@"; do
  name=${v%%=*}; rest=${v#*=}; pat=${rest%%:*}; rest=${rest#*:}; nv=${rest%%:*}; opts=${rest#*:}
  for l in $(seq 0 $((world-1))); do RANK=$l LOCAL_RANK=$l WORLD_SIZE=$world LOCAL_WORLD_SIZE=$world MASTER_ADDR=127.0.0.1 MASTER_PORT=29730 java $opts -cp $CP io.reactivecollectives.perf.WarmupCurve 67108864 $secs 2>$out/$name-r$r.err & done > >(grep -E '^(op|first_op_s|cpu_ms_per_op) ' > $out/$name-r$r.txt)
  if [[ $pat != - ]]; then
    end=$((SECONDS+4))
    while (( SECONDS < end )); do
      for p in $(pgrep -f "WarmupCurve 67108864"); do for t in /proc/$p/task/*; do
        c=$(cat $t/comm 2>/dev/null); [[ $c == $pat* ]] && renice -n $nv -p $(basename $t) >/dev/null 2>&1
      done; done; sleep 0.05
    done
  fi
  wait; sleep 1
done; done
python3 perf/scripts/warmup_summary.py $out | grep -E "^\||t90"
