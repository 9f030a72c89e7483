#!/usr/bin/env bash
# multihost_compare.sh: all-reduce across hosts made of network namespaces (netns_hosts.sh), side by
# side in one run with alternating rounds: this library with its automatic choice (two levels where
# hosts run several ranks), this library forced to the flat ring, PyTorch gloo, and iperf3 between
# two hosts for the link rate. Every host link is capped with tbf (RATE, default 1gbit).
#
#   HOSTS=2 PER_HOST=2 ROUNDS=3 SIZE=64M perf/scripts/multihost_compare.sh
#   (RC_RANK_JAVA_OPTS: extra JVM options of our ranks, e.g. -Drc.hierarchical.parts=8; LABELS: which
#   runs, default "auto ring gloo link"; "tls" adds ours with mutual TLS between the ranks)
#
# Prints raw rows "label round op bytes count time_us algbw busbw" to OUT (default
# perf/out/multihost.txt) and the iperf3 rate as "iperf3 round Gbit/s". Needs root (namespaces),
# the perf module built (bin/collectives-perf builds it) and the peers (../shared/peers/setup.sh).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOSTS="${HOSTS:-2}"; PER_HOST="${PER_HOST:-2}"; ROUNDS="${ROUNDS:-3}"; SIZE="${SIZE:-64M}"; RATE="${RATE:-1gbit}"
OUT="${OUT:-$ROOT/perf/out/multihost.txt}"
WORLD=$((HOSTS * PER_HOST))
mkdir -p "$(dirname "$OUT")"; : > "$OUT"
cd "$ROOT"
bin/collectives-perf --op all_reduce --world 1 --min 4 --max 4 --iters 1 >/dev/null 2>&1   # builds if needed
CP="perf/target/classes:$(cat perf/target/collectives-perf.classpath)"
BYTES=$(python3 -c "s='$SIZE'; m={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))")
NETNS=(bash perf/scripts/netns_hosts.sh --hosts "$HOSTS" --rate "$RATE" --)

ours() { # label [extra CollectivesPerf options]
  local label=$1; shift
  "${NETNS[@]}" bash -c 'for l in $(seq 0 $(('"$PER_HOST"' - 1))); do
      RANK=$(( {host} * '"$PER_HOST"' + l )) LOCAL_RANK=$l WORLD_SIZE='"$WORLD"' LOCAL_WORLD_SIZE='"$PER_HOST"' \
      MASTER_ADDR=h0 MASTER_PORT=29700 java -Xms1g -Xmx2g -XX:MaxDirectMemorySize=4g -XX:+UseParallelGC \
        -Dio.netty.leakDetection.level=disabled '"${RC_RANK_JAVA_OPTS:-}"' -cp '"$CP"' io.reactivecollectives.perf.CollectivesPerf --env \
        --op all_reduce --min '"$SIZE"' --max '"$SIZE"' --iters 50 --repeat 3 '"$*"' & done; wait' 2>/dev/null \
    | sed -n 's/^\[h0\] //p' | awk '$1 ~ /^[0-9]+$/ && NF >= 13 {print "all_reduce", $1, $2, $6, $7, $8, $9}' \
    | sed "s/^/$label r$round /" >> "$OUT"   # nccl-tests' layout, out of place, as the peers' rows
}
gloo() {
  "${NETNS[@]}" bash -c 'for l in $(seq 0 $(('"$PER_HOST"' - 1))); do
      RANK=$(( {host} * '"$PER_HOST"' + l )) LOCAL_RANK=$l WORLD_SIZE='"$WORLD"' MASTER_ADDR=h0 MASTER_PORT=29701 \
      GLOO_SOCKET_IFNAME=eth0 /usr/bin/python3 perf/scripts/gloo_env_bench.py --min '"$BYTES"' --max '"$BYTES"' --repeat 3 & done; wait' \
    2>/dev/null | grep -E '^\[h0\] +all_reduce' | sed "s/^\[h0\]//; s/  #.*//; s/^/gloo r$round /" >> "$OUT"
}
link() {
  bash perf/scripts/netns_hosts.sh --hosts 2 --rate "$RATE" -- bash -c \
    'if [ {host} = 0 ]; then iperf3 -s -1 -p 5299 >/dev/null; else sleep 1; iperf3 -c h0 -p 5299 -t 5 -f g; fi' 2>/dev/null \
    | grep -E 'receiver' | awk -v r="$round" '{for (i=1;i<=NF;i++) if ($i ~ /bits\/sec/) print "iperf3 r" r, $(i-1)}' >> "$OUT"
}
tls_dir() { # one certificate every rank presents and trusts (mutual TLS), naming every host of the test bed
  # (h0..h15 and their addresses on the fixed subnet below): the ranks check the peer's address against it
  local d="${TLS_DIR:-/tmp/rc-multihost-tls}" san="" i
  for ((i = 0; i < 16; i++)); do san+="DNS:h$i,IP:$TLS_NET.$((10 + i)),"; done
  [[ -s "$d/cert.pem" ]] || { mkdir -p "$d" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$d/key.pem" -out "$d/cert.pem" -days 2 -subj /CN=h0 -addext "subjectAltName=${san%,}" >/dev/null 2>&1; }
  echo "$d"
}
TLS_NET=10.77.233
LABELS="${LABELS:-auto ring gloo link}"
for round in $(seq 1 "$ROUNDS"); do
  for label in $LABELS; do
    case "$label" in
      auto) ours auto ;;
      ring) ours ring --algorithm RING ;;
      tls) RC_NETNS_NET=$TLS_NET ours tls --tls-dir "$(tls_dir)" ;;
      gloo) gloo ;;
      link) link ;;
    esac
  done
done
echo "# done $(date -u) hosts=$HOSTS per_host=$PER_HOST size=$SIZE rate=$RATE" >> "$OUT"
