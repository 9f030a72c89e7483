#!/bin/bash
cd /work/main
D="-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json"
LEAN="-XX:MaxInlineLevel=6 -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000"
J25="/usr/lib/jvm/temurin-25-jdk-amd64/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -XX:AOTCache=/tmp/rc25.aot"
OUT=/tmp/wc/g25x4 HOSTS=0 WORLD=4 ROUNDS=2 SECONDS_PER_RUN=20 VARIANTS="jdk17=java -XX:SharedArchiveFile=/tmp/rc3.jsa $LEAN $D;jdk25=$J25 $LEAN $D" perf/scripts/warmup_compare.sh > /tmp/wc/g25x4.out 2>&1
OUT=/tmp/wc/g25ns HOSTS=2 PER_HOST=2 RATE=1gbit ROUNDS=2 SECONDS_PER_RUN=25 VARIANTS="jdk17=java -XX:SharedArchiveFile=/tmp/rc3.jsa $D;jdk25=$J25 $D" perf/scripts/warmup_compare.sh > /tmp/wc/g25ns.out 2>&1
echo alldone > /tmp/wc/sets25.done
