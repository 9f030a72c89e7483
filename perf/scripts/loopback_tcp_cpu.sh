#!/usr/bin/env bash
# loopback_tcp_cpu.sh: issue 45's loopback measurement. 2 ranks on this host over loopback TCP (ours with
# shared memory and Unix sockets off, PyTorch gloo, Open MPI's tcp BTL with pml ob1 so that neither vader
# nor UCX carries the data), float32 sum all-reduce at each of SIZES (SIZE:WARMUP:ITERS), ROUNDS rounds,
# the three alternating (the order rotates each round). Each launch covers the sizes; per size, after the
# warm-up and a barrier, every rank reads its process CPU clock (user+sys, all threads: for the JVM the
# JIT and GC too) around ITERS all-reduces each timed on its own; the ranks' CPU is summed. Drivers:
# LoopbackCpu.java (our library's API, as WarmupCurve), loopback_gloo_cpu.py, loopback_mpi_cpu.py; each
# rank-0 prints `row bytes iters median_us mean_us busbw_GBps cpu_ms_per_op`. Every launch runs under
# `flock /tmp/bench.lock`. Raw output: OUT/TAG-r<round>-<framework>.txt (TAG: loopback); the table: OUT/TAG-summary.txt.
#
#   perf/scripts/loopback_tcp_cpu.sh [OUT]        (ROUNDS=3 SIZES='4:3000:10000 1M:100:1000 64M:5:20')
#   LOOPBACK_THREADS=1 ROUNDS=1 FRAMEWORKS_ONLY=ours TAG=loopback-threads perf/scripts/loopback_tcp_cpu.sh   (rank 0 of ours: CPU by thread)
#
# Needs the perf module built (bin/collectives-perf builds it); its class path is copied to a temporary
# directory first so that a rebuild in the tree meanwhile does not change what runs.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${1:-$ROOT/perf/results/2026-11-29-tcpcpu}"
ROUNDS="${ROUNDS:-3}"
SIZES="${SIZES:-4:3000:10000 1M:100:1000 64M:5:20}"
LOCK="${LOCK:-/tmp/bench.lock}"
TAG="${TAG:-loopback}"   # file names: OUT/TAG-r<round>-<framework>.txt
FRAMEWORKS=(ours gloo mpi); ONLY="${FRAMEWORKS_ONLY:-}"   # e.g. ours: the others skipped
mkdir -p "$OUT"
cd "$ROOT"
WORK="$(mktemp -d /tmp/loopback-cpu.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lib" "$WORK/classes"
CP=""; i=0
for j in $(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1) $(tr ':' ' ' < perf/target/collectives-perf.classpath); do
  i=$((i + 1)); cp -r "$j" "$WORK/lib/$i-$(basename "$j")"; CP="$CP:$WORK/lib/$i-$(basename "$j")"
done
CP="${CP#:}"
javac -nowarn -cp "$CP" -d "$WORK/classes" perf/scripts/LoopbackCpu.java
JAVA_RANK_OPTS="--enable-native-access=ALL-UNNAMED -Xms1g -Xmx2g -XX:MaxDirectMemorySize=8g -XX:+UseParallelGC -Dio.netty.leakDetection.level=disabled -Drc.transport.sharedMemory=false -Drc.transport.unixSockets=false"
PORT=$((29600 + RANDOM % 300))

launch() {  # framework -> rank 0's output on stdout
  local fw=$1; PORT=$((PORT + 1))
  case "$fw" in
    ours)
      for r in 0 1; do
        RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT \
          java $JAVA_RANK_OPTS -cp "$WORK/classes:$CP" LoopbackCpu $SIZES > "$WORK/rank$r.out" 2> "$WORK/rank$r.err" &
      done ;;
    gloo)
      for r in 0 1; do
        RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT GLOO_SOCKET_IFNAME=lo \
          /usr/bin/python3 perf/scripts/loopback_gloo_cpu.py $SIZES > "$WORK/rank$r.out" 2> "$WORK/rank$r.err" &
      done ;;
    mpi)
      mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo -np 2 \
        /usr/bin/python3 perf/scripts/loopback_mpi_cpu.py $SIZES > "$WORK/rank0.out" 2> "$WORK/rank0.err" &
      : > "$WORK/rank1.out"; : > "$WORK/rank1.err" ;;
  esac
  local rc=0; wait || rc=$?
  cat "$WORK/rank0.out" "$WORK/rank1.out"; sed 's/^/# stderr: /' "$WORK/rank0.err" "$WORK/rank1.err" | grep -v -i "warn" | head -20
  return $rc
}

for round in $(seq 1 "$ROUNDS"); do
  for k in 0 1 2; do
    fw=${FRAMEWORKS[$(( (k + round - 1) % 3 ))]}
    [[ -n "$ONLY" && " $ONLY " != *" $fw "* ]] && continue
    f="$OUT/$TAG-r$round-$fw.txt"
    {
      echo "# round $round framework $fw sizes '$SIZES' $(date -u +%FT%TZ) nproc $(nproc) $(uname -r) load $(cut -d' ' -f1-3 /proc/loadavg)"
      echo "# waiting for $LOCK"
    } > "$f"
    # the launch, under the lock (the function runs inside the flock'd bash)
    flock "$LOCK" bash -c "echo \"# lock held from \$(date -u +%T), load \$(cut -d' ' -f1-3 /proc/loadavg)\";
      $(declare -f launch); export LOOPBACK_THREADS='${LOOPBACK_THREADS:-0}'; WORK='$WORK' CP='$CP' SIZES='$SIZES' PORT=$PORT JAVA_RANK_OPTS='$JAVA_RANK_OPTS'; launch $fw" >> "$f" 2>&1 \
      || echo "# launch failed: $?" >> "$f"
    PORT=$((PORT + 1))
    echo "# done $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$f"
    echo "round $round $fw: $(grep -c '^row' "$f") rows"
  done
done
python3 "$ROOT/perf/scripts/loopback_tcp_cpu_summary.py" "$OUT" "$TAG" | tee "$OUT/$TAG-summary.txt"
