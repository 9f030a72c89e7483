#!/bin/bash
# threads.sh <t1> <t2> [java opts...]: per-thread CPU (ticks) of both ranks between t1 and t2 s after start
t1=$1; t2=$2; shift 2
cd /work/main; CP=$(cat /tmp/cp.txt)
for l in 0 1; do RANK=$l LOCAL_RANK=$l WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29721 java "$@" -cp $CP io.reactivecollectives.perf.WarmupCurve 67108864 12 > /tmp/wc/th$l.txt 2>&1 & done
snap(){ for p in $(pgrep -f "WarmupCurve 67108864"); do for t in /proc/$p/task/*; do n=$(tr ' ' '_' < $t/comm); echo "$p:$(basename $t) $n $(awk '{print $14+$15}' $t/stat)"; done; done | sort; }
sleep $t1; snap > /tmp/wc/s1; sleep $(python3 -c "print($t2-$t1)"); snap > /tmp/wc/s2; wait
join /tmp/wc/s1 /tmp/wc/s2 | awk '{d=$5-$3; if (d>3) print $1, $2, d}' | sort -k2 | awk '{print} {s+=$3} END {print "total", s}'
