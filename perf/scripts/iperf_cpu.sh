#!/usr/bin/env bash
# iperf_cpu.sh: the kernel's floor of CPU per byte over one namespace link: one iperf3 stream from h1
# to h0 (perf/scripts/netns_hosts.sh, tbf at RATE both ways), sender and receiver each under
# /usr/bin/time; prints per run the bytes received, user+system CPU of each side and their sum in ms
# per GB (10^9 bytes), then the median over the runs.
#
#   RATE=1gbit RUNS=3 SECS=20 perf/scripts/iperf_cpu.sh [OUT_FILE]
#
# Needs root and iperf3 (../shared/peers/setup.sh). Always tears the namespaces down (netns_hosts.sh).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RATE="${RATE:-1gbit}"; RUNS="${RUNS:-3}"; SECS="${SECS:-20}"
OUT="${1:-/dev/stdout}"
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
for r in $(seq 1 "$RUNS"); do
  # h0: server for one test; h1: client after a second. Each writes "cpu <user s> <sys s>" and the JSON.
  bash perf/scripts/netns_hosts.sh --hosts 2 --rate "$RATE" -- bash -c '
    if [ {host} = 0 ]; then
      /usr/bin/time -f "cpu %U %S" -o '"$tmp"'/srv.time iperf3 -s -1 -J > '"$tmp"'/srv.json
    else
      sleep 1; /usr/bin/time -f "cpu %U %S" -o '"$tmp"'/cli.time iperf3 -c h0 -t '"$SECS"' -J > '"$tmp"'/cli.json
    fi' >/dev/null 2>&1
  python3 - "$tmp" "$r" <<'EOF' >> "$tmp/rows"
import json, sys
d, r = sys.argv[1], sys.argv[2]
srv = json.load(open(f"{d}/srv.json"))
b = srv["end"]["sum_received"]["bytes"]; secs = srv["end"]["sum_received"]["seconds"]
def cpu(f):
    p = [l for l in open(f) if l.startswith("cpu ")][-1].split()
    return (float(p[1]) + float(p[2])) * 1e3
s, c = cpu(f"{d}/srv.time"), cpu(f"{d}/cli.time")
print(f"run {r} bytes {b} gbit_s {b * 8 / secs / 1e9:.3f} recv_cpu_ms {s:.0f} send_cpu_ms {c:.0f} "
      f"ms_per_GB {(s + c) / (b / 1e9):.1f} recv_ms_per_GB {s / (b / 1e9):.1f} send_ms_per_GB {c / (b / 1e9):.1f}")
EOF
done
{
  cat "$tmp/rows"
  python3 -c "
import statistics, sys
v = [float(l.split()[l.split().index('ms_per_GB') + 1]) for l in open('$tmp/rows')]
print(f'median ms_per_GB {statistics.median(v):.1f} ({min(v):.1f}-{max(v):.1f}) runs {len(v)} rate $RATE secs $SECS')"
} > "$OUT"
[[ "$OUT" == /dev/stdout ]] || cat "$OUT"
