#!/bin/bash
# TCP store benchmark (issue 3): Reactive Collectives' TcpStore vs PyTorch's TCPStore, same run.
# Usage: perf/scripts/store_bench.sh [--clients 16] [--ops 100000] [--window 1]   (from the repository root)
# Builds only reactive-core, reactive-store + reactive-transport (so other modules' state does not matter), compiles
# StoreBenchmark against them, runs it, then PyTorch's peer bench with the same clients/ops.
set -euo pipefail
BUILD=${RC_BUILD_DIR:-target-storebench}
CLIENTS=16; OPS=100000
args=("$@"); for ((i=0; i<${#args[@]}; i++)); do
  case "${args[$i]}" in --clients) CLIENTS=${args[$((i+1))]};; --ops) OPS=${args[$((i+1))]};; esac
done
CPFILE=$PWD/perf/$BUILD/store-bench.classpath
mkdir -p perf/$BUILD/store-bench
mvn -B -q -Drc.build.dir=$BUILD -pl reactive-tools -am test-compile dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile=$CPFILE -Dmaven.test.skip.exec=true >/dev/null
CP=$PWD/reactive-tools/$BUILD/classes:$PWD/reactive-transport/$BUILD/classes:$PWD/reactive-store/$BUILD/classes:$PWD/reactive-core/$BUILD/classes:$(cat $CPFILE)
javac -nowarn -d perf/$BUILD/store-bench -cp "$CP" perf/src/main/java/io/reactivecollectives/perf/StoreBenchmark.java \
    perf/src/main/java/io/reactivecollectives/perf/ChildJvm.java
PEER=$(cd "$(dirname "$0")/../../.." && pwd)/shared/peers/tcpstore_bench.py
[ -f "$PEER" ] || PEER=/work/shared/peers/tcpstore_bench.py
# alternate the two, ROUNDS times (the machine is shared and noisy: compare within a round)
for round in $(seq 1 "${ROUNDS:-3}"); do
  echo "## round $round: $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  # Netty's leak detector off in every JVM of the benchmark (it samples allocations with a stack trace); the tests run it at PARANOID
  java -Xmx1g -XX:+UseSerialGC -Dio.netty.leakDetection.level=disabled -cp "perf/$BUILD/store-bench:$CP" \
      io.reactivecollectives.perf.StoreBenchmark "$@" 2>&1 | grep -v '^SLF4J'
  echo "# PyTorch TCPStore: /usr/bin/python3 $PEER --clients $CLIENTS --ops $OPS"
  /usr/bin/python3 "$PEER" --clients "$CLIENTS" --ops "$OPS" --port $((20000 + RANDOM % 20000))
done
