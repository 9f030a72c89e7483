#!/usr/bin/env bash
# The walk of one all-reduce, measured (issue 43): JFR method tracing (JDK 25's jdk.MethodTrace, JEP 520)
# of every class of core and the transport while two ranks of a LocalCluster run one all-reduce
# (after three warm-up ones); prints the project's files in the order first entered and those entered
# again on one call stack. Needs a JDK 25 (JAVA25, default /usr/lib/jvm/temurin-25-jdk-amd64) and the
# perf build (bin/collectives-perf builds it).
#   perf/scripts/all_reduce_walk.sh [shm|tcp] [BYTES]      (defaults: tcp 67108864)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
JAVA25="${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}"
TRANSPORT="${1:-tcp}"
BYTES="${2:-67108864}"
[[ -x "$JAVA25/bin/java" ]] || { echo "all_reduce_walk: no JDK 25 at $JAVA25 (set JAVA25)" >&2; exit 2; }
CP_FILE="$ROOT/perf/target/collectives-perf.classpath"
"$ROOT/bin/collectives-perf" --help >/dev/null 2>&1   # builds perf when its sources changed
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for m in reactive-core reactive-store reactive-transport; do
  [[ -d "$ROOT/$m/target/classes/io" ]] || continue
  (cd "$ROOT/$m/target/classes" && find io -name '*.class' ! -name 'package-info.class' ! -name 'module-info.class') 
done | sed 's/\.class$//; s|/|.|g' | sort -u > "$work/classes.txt"
(cd "$ROOT/reactive-core/target/classes" && find io -name '*.class') | sed 's|.*/||; s/\$.*//; s/\.class$/.java/' \
  | sort -u > "$work/core-files.txt"
opts=()
[[ $TRANSPORT == tcp ]] && opts=(-Drc.transport.sharedMemory=false -Drc.transport.unixSockets=false)
"$JAVA25/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dio.netty.leakDetection.level=disabled "${opts[@]}" \
    -cp "$ROOT/perf/target/classes:$(cat "$CP_FILE")" "$ROOT/perf/scripts/walk/AllReduceWalk.java" \
    "$BYTES" "$work/classes.txt" "$work/walk.jfr" "$work/core-files.txt" 2> "$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
echo "# $TRANSPORT, $BYTES bytes, 2 ranks, $(git -C "$ROOT" rev-parse --short HEAD), $(date -u +%F)"
