#!/bin/bash
# Hostile and careless clients against the TCP store server (issue 17): runs StoreAttack, which starts the
# server in its own JVM, keeps well-behaved clients adding, and runs each attack in turn, printing a markdown
# table (connections, what the server still holds, its RSS before/peak/after, legit latency, log volume).
# Usage (from the repository root): perf/scripts/store_attack.sh [--seconds 15] [--attacks idle,slowloris,...]
#        [--server-jvm-args "-XX:+UseSerialGC -Xmx256m"] [--server-args "--frame-memory 268435456"]
set -euo pipefail
BUILD=${RC_BUILD_DIR:-target-storeattack}
CPFILE=$PWD/perf/$BUILD/store-attack.classpath
mkdir -p perf/$BUILD/store-attack
mvn -B -q -Drc.build.dir=$BUILD -pl reactive-tools -am compile dependency:build-classpath \
    -DincludeScope=test -Dmdep.outputFile=$CPFILE >/dev/null  # test scope: with slf4j-simple, so the server logs
CP=$PWD/reactive-tools/$BUILD/classes:$PWD/reactive-transport/$BUILD/classes:$PWD/reactive-store/$BUILD/classes:$PWD/reactive-core/$BUILD/classes:$(cat $CPFILE)
javac -nowarn -d perf/$BUILD/store-attack -cp "$CP" perf/src/main/java/io/reactivecollectives/perf/StoreAttack.java \
    perf/src/main/java/io/reactivecollectives/perf/StoreAttackConnections.java perf/src/main/java/io/reactivecollectives/perf/ProcessMemory.java
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -n) $(nproc) cores, $(java -version 2>&1 | head -1), commit $(git rev-parse --short HEAD)"
java -Xmx512m -Dio.netty.leakDetection.level=disabled -cp "perf/$BUILD/store-attack:$CP" \
    io.reactivecollectives.perf.StoreAttack "$@" 2>&1 | grep -v '^SLF4J'
