#!/usr/bin/env bash
# Bytes allocated per collective on each rank, from the rank JVMs' GC logs: one run of
# bin/collectives-perf at one size with -Xlog:gc, then (young-generation growth between the last seven
# young collections) / (their time span) x (the reported time per collective). The estimate carries
# the reported time's rounding (0.1 us), so about +-10% at 1-2 us; alternate builds to compare them.
#
#   perf/scripts/gc_alloc.sh                       # 4 B barrier, this tree
#   ROOT=/path/to/other/tree perf/scripts/gc_alloc.sh all_reduce 4
set -euo pipefail
ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
OP="${1:-barrier}"
BYTES="${2:-4}"
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
TIME=$(RC_RANK_JAVA_OPTS="-Xlog:gc:file=$LOGS/gc-%p.log ${RC_RANK_JAVA_OPTS:-}" \
    "$ROOT/bin/collectives-perf" "$OP" --world 2 -b "$BYTES" -e "$BYTES" --min-time-ms=6000 2>/dev/null \
    | awk '$1 ~ /^[0-9]+$/ && NF >= 13 {print $6}')   # nccl-tests' layout: the out-of-place time (us)
for f in "$LOGS"/gc-*.log; do
  python3 - "$f" "$TIME" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1]):
    if 'Pause Young' in line:
        t = float(re.match(r'\[([\d.]+)s', line).group(1))
        before, after = map(int, re.search(r'(\d+)M->(\d+)M', line).groups())
        rows.append((t, before, after, float(re.search(r'([\d.]+)ms\s*$', line).group(1))))
rows = rows[-7:]
if len(rows) < 3:
    sys.exit("too few young collections in the log: run longer")
alloc = sum(rows[i + 1][1] - rows[i][2] for i in range(len(rows) - 1))
span = rows[-1][0] - rows[0][0]
us = float(sys.argv[2])
rate = alloc / span
print(f"{us} us per collective; {rate:.0f} MB/s; {rate * 1048576 * us / 1e6:.0f} B per collective; "
      f"young GC every {span / (len(rows) - 1) * 1000:.0f} ms, pauses "
      + ", ".join(f"{r[3]:.1f}" for r in rows[1:]) + " ms")
PY
done
