#!/bin/bash
# Many clients on one store (issue 17): Reactive Collectives' TcpStore (StoreManyClients) and PyTorch's TCPStore
# (store_many_clients.py) in the same layout, alternated ROUNDS times (default 3): P processes x C clients connect
# at once, then each client adds 1 to one counter N times. Usage (from the repository root):
#   perf/scripts/store_many_clients.sh [--processes 8] [--clients 125] [--adds 200] [--workload keys]
# --workload keys (issue 44): every client sets its key, reads it back, waits for the next client's key, adds once;
# the store server's memory before, at the peak and after. 4,096 clients: --processes 8 --clients 512 --workload keys
set -euo pipefail
BUILD=${RC_BUILD_DIR:-target-storebench}
P=8; C=125; N=200; W=adds
args=("$@"); for ((i=0; i<${#args[@]}; i++)); do
  case "${args[$i]}" in --processes) P=${args[$((i+1))]};; --clients) C=${args[$((i+1))]};; --adds) N=${args[$((i+1))]};; --workload) W=${args[$((i+1))]};; esac
done
CPFILE=$PWD/perf/$BUILD/store-bench.classpath
mkdir -p perf/$BUILD/store-bench
mvn -B -q -Drc.build.dir=$BUILD -pl reactive-tools -am compile dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile=$CPFILE >/dev/null
CP=$PWD/reactive-tools/$BUILD/classes:$PWD/reactive-transport/$BUILD/classes:$PWD/reactive-store/$BUILD/classes:$PWD/reactive-core/$BUILD/classes:$(cat $CPFILE)
javac -nowarn -d perf/$BUILD/store-bench -cp "$CP" perf/src/main/java/io/reactivecollectives/perf/StoreManyClients.java \
    perf/src/main/java/io/reactivecollectives/perf/ChildJvm.java perf/src/main/java/io/reactivecollectives/perf/ProcessMemory.java
for round in $(seq 1 "${ROUNDS:-3}"); do
  echo "## round $round: $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  java -Xmx512m -XX:+UseSerialGC -Dio.netty.leakDetection.level=disabled -cp "perf/$BUILD/store-bench:$CP" \
      io.reactivecollectives.perf.StoreManyClients "$@" 2>&1 | grep -v '^SLF4J'
  java -Xmx512m -XX:+UseSerialGC -Dio.netty.leakDetection.level=disabled -cp "perf/$BUILD/store-bench:$CP" \
      io.reactivecollectives.perf.StoreManyClients --tcp-only "$@" 2>&1 | grep -v '^SLF4J'
  /usr/bin/python3 perf/scripts/store_many_clients.py --processes "$P" --clients "$C" --adds "$N" --workload "$W" --port $((20000 + RANDOM % 12000))
  /usr/bin/python3 perf/scripts/store_many_clients.py --processes "$P" --clients "$C" --adds "$N" --workload "$W" --port $((20000 + RANDOM % 12000)) \
      --start-method spawn
done
