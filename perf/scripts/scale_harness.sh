#!/usr/bin/env bash
# The scale harness (issue 44): LocalClusters of growing size in one JVM, one row per world size
# (start-up time, fds and memory per rank, store operations, a checked SUM all-reduce, median 4 B and
# 1 MiB all-reduce times). Usage (from anywhere):
#   perf/scripts/scale_harness.sh [--worlds 8,16,32,64] [--iters 20] [--connect-timeout 120] [--every-op [--all-to-all]] [--grid] [--all-pairs]
#   perf/scripts/scale_harness.sh processes [--world 1024] [--jvms 4] [--iters 5]   # one group over several rank JVMs
# Builds the perf module and its class path as bin/collectives-perf does (same files), with MVN_FLAGS added
# (e.g. MVN_FLAGS=-o for offline); JAVA_OPTS go to the JVM (default -Xmx4g); prints the machine first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${RC_BUILD_DIR:-target}"
CP_FILE="$ROOT/perf/$BUILD_DIR/collectives-perf.classpath"
CLASSES="$ROOT/perf/$BUILD_DIR/classes"
if [[ ! -s "$CP_FILE" || ! -f "$CLASSES/io/reactivecollectives/perf/ScaleHarness.class" || "${RC_REBUILD:-0}" == 1 ]]; then
  (cd "$ROOT" && mvn -q -B ${MVN_FLAGS:-} -Drc.build.dir="$BUILD_DIR" -DskipTests -Dmaven.javadoc.skip=true \
      -pl perf -am package dependency:build-classpath -Dmdep.outputFile="$BUILD_DIR/collectives-perf.classpath" \
      -DincludeScope=runtime) >&2
fi
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -n), $(nproc) cores, ulimit -n $(ulimit -n), load $(cut -d' ' -f1-3 /proc/loadavg)"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
MAIN=io.reactivecollectives.perf.ScaleHarness
if [[ "${1:-}" == processes ]]; then   # one group over several rank JVMs: ScaleProcesses (--world, --jvms)
  MAIN=io.reactivecollectives.perf.ScaleProcesses
  shift
fi
exec "$JAVA" --enable-native-access=ALL-UNNAMED ${JAVA_OPTS:--Xmx4g} -cp "$CLASSES:$(cat "$CP_FILE")" "$MAIN" "$@"
