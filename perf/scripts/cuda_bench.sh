#!/usr/bin/env bash
# The CUDA benchmark of issue 8: reactive-cuda's CudaBenchmark and PyTorch's copies and gloo
# all_reduce of CUDA tensors, in one command, on a machine with a GPU.
#
#   perf/scripts/cuda_bench.sh build        # where Maven reaches its registry: jars into perf/target-cuda/lib
#   perf/scripts/cuda_bench.sh run [ARGS]   # on the GPU machine (Java 17, python3 with torch): both benchmarks
#   perf/scripts/cuda_bench.sh              # build, then run
#
# ARGS go to CudaBenchmark (--sizes, --iters, --allreduce-bytes, --chunk-bytes, --depth, ...).
set -euo pipefail
cd "$(dirname "$0")/../.."
LIB=perf/target-cuda/lib

build() {
  mvn -B -q -Drc.build.dir=target-cuda -pl perf -am -DskipTests package dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$PWD/$LIB"
  cp perf/target-cuda/perf-*.jar "$LIB/"
  echo "built $(ls "$LIB" | wc -l) jars into $LIB ($(du -sh "$LIB" | cut -f1))"
}

run() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  java -Xmx16g -XX:MaxDirectMemorySize=24g -cp "$LIB/*" io.reactivecollectives.perf.CudaBenchmark "$@"
  python3 perf/scripts/torch_cuda_copy_bench.py
}

case "${1:-all}" in
  build) build ;;
  run) shift; run "$@" ;;
  all) build; run ;;
  *) echo "usage: $0 [build|run [ARGS]]" >&2; exit 2 ;;
esac
