#!/bin/bash
# ab_opts.sh <rounds> <op> [bytes]: alternates plain vs directives ranks, prints time_us per run
R=$1; op=$2; b=${3:-4}
cd /work/main
for ((r=1;r<=R;r++)); do
  for v in plain focused; do
    o=""; [ $v = focused ] && o="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=/tmp/wc/final.json"
    t=$(RC_RANK_JAVA_OPTS="$o" timeout 200 bin/collectives-perf $op --world 2 -b $b -e $b --repeat 5 2>/dev/null | awk -v op=$op '$1==op{print $4}')
    echo "$v $t"
  done
done | awk '{print; s[$1]=s[$1]" "$2} END{for(k in s) print k":"s[k]}'
