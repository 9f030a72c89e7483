#!/bin/bash
# ab_lend.sh rounds bytes: alternates lend (default) vs copy (shmLendBytes=0), busbw and time per run
R=$1; b=$2; cd /work/main
for ((r=1;r<=R;r++)); do for v in lend copy; do
  o=""; [ $v = copy ] && o="-Drc.transport.shmLendBytes=0"
  RC_RANK_JAVA_OPTS="$o" timeout 300 bin/collectives-perf all_reduce --world 2 -b $b -e $b --repeat 9 2>/dev/null | awk -v v=$v '$1=="all_reduce"{print v, $4, $6}'
done; done
