#!/usr/bin/env bash
# stripes_compare.sh: all-reduce between ranks of this host forced onto TCP (no Unix domain
# sockets), with 1, 2, 4 ... connections per peer pair (GroupOptions.connectionsPerPeer, here the
# system property rc.transport.connectionsPerPeer), side by side in alternating rounds; TLS=1 adds
# mutual TLS between the ranks (a throw-away certificate).
#
#   ROUNDS=5 SIZE=64M KS="1 2 4" TLS=0 perf/scripts/stripes_compare.sh
#
# Prints raw rows "K round time_us algbw busbw" to OUT (default perf/out/stripes.txt), then per K the
# median bus bandwidth with the lowest and highest round.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
ROUNDS="${ROUNDS:-5}"; SIZE="${SIZE:-64M}"; KS="${KS:-1 2 4}"; TLS="${TLS:-0}"; WORLD="${WORLD:-2}"
ITERS="${ITERS:-20}"; OUT="${OUT:-$ROOT/perf/out/stripes.txt}"
mkdir -p "$(dirname "$OUT")"; : > "$OUT"
cd "$ROOT"
TLS_ARGS=()
if [[ "$TLS" == 1 ]]; then
  d="${TLS_DIR:-/tmp/rc-stripes-tls}"
  [[ -s "$d/cert.pem" ]] || { mkdir -p "$d" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$d/key.pem" -out "$d/cert.pem" -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" >/dev/null 2>&1; }
  TLS_ARGS=(--tls-dir "$d")
fi
for round in $(seq 1 "$ROUNDS"); do
  for k in $KS; do
    RC_RANK_JAVA_OPTS="-Drc.transport.unixSockets=false -Drc.transport.connectionsPerPeer=$k ${RC_RANK_JAVA_OPTS:-}" \
      bin/collectives-perf all_reduce --world "$WORLD" -b "$SIZE" -e "$SIZE" -n "$ITERS" -w 3 "${TLS_ARGS[@]}" 2>/dev/null \
      | awk -v k="$k" -v r="$round" '$1 ~ /^[0-9]+$/ && NF >= 13 {print k, r, $6, $7, $8}' >> "$OUT"   # out of place
  done
done
python3 - "$OUT" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
by = {}
for k, r, t, alg, bus in rows:
    by.setdefault(int(k), []).append(float(bus))
for k in sorted(by):
    v = by[k]
    print(f"connections/peer {k}: busbw median {statistics.median(v):.3f} GB/s (min {min(v):.3f}, max {max(v):.3f}, {len(v)} rounds)")
PY
