#!/usr/bin/env bash
# warmup_compare.sh: the warm-up curve of a 64 MiB all-reduce loop from process start, this library
# (one or more JVM variants) beside PyTorch gloo, rounds alternating; and the CPU time per all-reduce
# in the steady state (all ranks summed). Each run starts fresh processes and loops for SECONDS.
#
#   HOSTS=2 PER_HOST=2 RATE=1gbit ROUNDS=3 SECONDS_PER_RUN=40 perf/scripts/warmup_compare.sh
#   HOSTS=0 WORLD=2 perf/scripts/warmup_compare.sh          # WORLD ranks on loopback, no namespaces
#   VARIANTS='default=java;c1=java -XX:TieredStopAtLevel=1' # name=java command and options of our ranks, ';'-separated
#   (a variant with its own " -cp " runs that class path, e.g. an older build's, instead of this tree's)
#
# Raw rows go to OUT (default perf/out/warmup/<label>-r<round>.txt); the summary
# (perf/scripts/warmup_summary.py) prints, per label: first op (s from start), time to 90% of the
# steady state (s from start), busbw of the first 10 s from start, steady busbw, CPU ms per op.
# Needs the perf module built (bin/collectives-perf builds it), the peers (../shared/peers/setup.sh)
# and, with HOSTS > 0, root for the namespaces.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOSTS="${HOSTS:-2}"; PER_HOST="${PER_HOST:-2}"; WORLD="${WORLD:-2}"; ROUNDS="${ROUNDS:-3}"
SIZE="${SIZE:-64M}"; RATE="${RATE:-1gbit}"; SECS="${SECONDS_PER_RUN:-40}"
VARIANTS="${VARIANTS:-default=java}"
OUT="${OUT:-$ROOT/perf/out/warmup}"
mkdir -p "$OUT"
cd "$ROOT"
bin/collectives-perf --op all_reduce --world 1 --min 4 --max 4 --iters 1 >/dev/null 2>&1   # builds if needed
CP="$(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1):$(cat perf/target/collectives-perf.classpath)"   # jars only (CDS needs them)
BYTES=$(python3 -c "s='$SIZE'; m={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))")
if [[ "$HOSTS" -gt 0 ]]; then
  NPH=$PER_HOST; TOTAL=$((HOSTS * PER_HOST)); ADDR=h0
else
  NPH=$WORLD; TOTAL=$WORLD; ADDR=127.0.0.1
fi

# run <label> <command for local rank $l, with RANK etc. in its environment>
run() {
  local label=$1 cmd=$2 port=$3 file="$OUT/$1-r$round.txt"
  local body='export START_MS=$(date +%s%3N); for l in $(seq 0 '"$((NPH - 1))"'); do
      RANK=$(( HOSTIDX * '"$NPH"' + l )) LOCAL_RANK=$l WORLD_SIZE='"$TOTAL"' LOCAL_WORLD_SIZE='"$NPH"' \
      MASTER_ADDR='"$ADDR"' MASTER_PORT='"$port"' GLOO_SOCKET_IFNAME='"$([[ $HOSTS -gt 0 ]] && echo eth0 || echo lo)"' '"$cmd"' & done; wait'
  if [[ "$HOSTS" -gt 0 ]]; then
    bash perf/scripts/netns_hosts.sh --hosts "$HOSTS" --rate "$RATE" -- bash -c "${body//HOSTIDX/\{host\}}" 2>"$file.err" \
      | grep -E '^\[h0\] (op|first_op_s|cpu_ms_per_op) ' | sed 's/^\[h0\] //' > "$file"
  else
    bash -c "${body//HOSTIDX/0}" 2>"$file.err" | grep -E '^(op|first_op_s|cpu_ms_per_op) ' > "$file"
  fi
  echo "$label r$round: $(grep -c '^op' "$file") ops, $(grep cpu_ms "$file")"
}
IFS=';' read -r -a VARS <<< "$VARIANTS"
# A variant naming -XX:SharedArchiveFile=F or -XX:AOTCache=F whose F does not exist yet gets it recorded
# first, as the launcher does (collectives-run --class-data auto): rank 0 of a 2-rank loopback run.
for v in "${VARS[@]}"; do
  opts="${v#*=}"; [[ "$opts" == *" -cp "* ]] || opts="$opts -cp $CP"
  for kind in SharedArchiveFile AOTCache; do
    file=$(grep -oE -- "-XX:$kind=[^ ]+" <<< "$opts" | cut -d= -f2)
    [[ -n "$file" && ! -f "$file" ]] || continue
    rec=$([[ $kind == AOTCache ]] && echo "-XX:AOTCacheOutput=$file" || echo "-XX:ArchiveClassesAtExit=$file")
    for l in 0 1; do
      RANK=$l LOCAL_RANK=$l WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29719 \
        ${opts//-XX:$kind=$file/$([[ $l == 0 ]] && echo "$rec")} -Xlog:cds*=off io.reactivecollectives.perf.WarmupCurve 1M 6 >/dev/null 2>&1 &
    done; wait
    echo "recorded $file ($(du -h "$file" 2>/dev/null | cut -f1))"
  done
done
for round in $(seq 1 "$ROUNDS"); do
  for v in "${VARS[@]}"; do
    name="${v%%=*}"; opts="${v#*=}"
    [[ "$opts" == *" -cp "* ]] || opts="$opts -cp $CP"   # a variant may bring its own class path (an older build)
    run "$name" "$opts io.reactivecollectives.perf.WarmupCurve $BYTES $SECS" 29710
  done
  run gloo "/usr/bin/python3 perf/scripts/gloo_warmup.py $BYTES $SECS" 29711
done
echo "# done $(date -u) hosts=$HOSTS per_host=$PER_HOST world=$TOTAL size=$SIZE rate=$RATE seconds=$SECS variants=$VARIANTS" > "$OUT/meta.txt"
python3 perf/scripts/warmup_summary.py "$OUT"
