#!/usr/bin/env bash
# The CUDA benchmark of issue 8: reactive-cuda's CudaBenchmark and PyTorch's copies and gloo
# all_reduce of CUDA tensors, in one command, on a machine with a GPU.
#
#   perf/scripts/cuda_bench.sh build        # where Maven reaches its registry: jars into perf/target-cuda/lib,
#                                           # a jlinked JRE into perf/target-cuda/devcarry (carry both dirs)
#   perf/scripts/cuda_bench.sh run [ARGS]   # on the GPU machine (Java 17, python3 with torch): both benchmarks
#   perf/scripts/cuda_bench.sh gpu-tests    # on the GPU machine: CudaDeviceTest and HostStagedCudaTest, no Maven
#   perf/scripts/cuda_bench.sh              # build, then run
#
# ARGS go to CudaBenchmark (--sizes, --iters, --allreduce-bytes, --chunk-bytes, --depth, ...).
set -euo pipefail
cd "$(dirname "$0")/../.."
LIB=perf/target-cuda/lib

build() {
  rm -rf "$LIB"
  mvn -B -q -Drc.build.dir=target-cuda -pl perf,reactive-cuda -am -DskipTests package dependency:copy-dependencies \
      -DincludeScope=test -DoutputDirectory="$PWD/$LIB"
  cp $(ls perf/target-cuda/perf-*.jar | grep -v -- '-jmh') "$LIB/"
  rm -f "$LIB"/jmh-*.jar "$LIB"/commons-math3-*.jar "$LIB"/jopt-simple-*.jar   # JMH only: keeps the carry small
  # the device machine has no JDK: a jlinked Java 17 runtime travels with the jars (about 20 MB packed)
  rm -rf perf/target-cuda/jre perf/target-cuda/devcarry && mkdir -p perf/target-cuda/devcarry
  "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/jlink" --add-modules \
      java.base,java.logging,java.management,java.naming,java.instrument,jdk.attach,jdk.unsupported,java.sql,jdk.management,jdk.crypto.ec \
      --compress=2 --strip-debug --no-header-files --no-man-pages --output perf/target-cuda/jre
  tar -C perf/target-cuda -cJf perf/target-cuda/devcarry/jre.tar.xz jre
  if [[ -f ../shared/peers/torch_gloo_bench.py ]]; then cp ../shared/peers/torch_gloo_bench.py perf/target-cuda/devcarry/; fi
  rm -rf perf/target-cuda/cuda-test-classes
  cp -r reactive-cuda/target-cuda/test-classes perf/target-cuda/cuda-test-classes
  echo "built $(ls "$LIB" | wc -l) jars into $LIB ($(du -sh "$LIB" | cut -f1))"
}

use_carried_jre() {
  if [[ -f perf/target-cuda/devcarry/jre.tar.xz ]] && ! command -v java >/dev/null; then
    mkdir -p /tmp/rc-jre && tar -C /tmp/rc-jre -xJf perf/target-cuda/devcarry/jre.tar.xz && export PATH=/tmp/rc-jre/jre/bin:$PATH
  fi
}

run() {
  use_carried_jre
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  java -Xmx16g -XX:MaxDirectMemorySize=24g -cp "$LIB/*" io.reactivecollectives.perf.CudaBenchmark "$@"
  python3 perf/scripts/torch_cuda_copy_bench.py
}

gpu_tests() {
  use_carried_jre
  java -XX:+AllowRedefinitionToAddDeleteMethods -XX:+EnableDynamicAgentLoading -Djdk.attach.allowAttachSelf=true \
       -Dio.netty.leakDetection.level=paranoid -XX:MaxDirectMemorySize=8g -Xmx4g \
       -cp "$LIB/*:perf/target-cuda/cuda-test-classes" io.reactivecollectives.cuda.GpuTestLauncher
}

case "${1:-all}" in
  build) build ;;
  run) shift; run "$@" ;;
  gpu-tests) gpu_tests ;;
  all) build; run ;;
  *) echo "usage: $0 [build|run [ARGS]|gpu-tests]" >&2; exit 2 ;;
esac
