#!/usr/bin/env bash
# The CUDA benchmark of issue 8: reactive-cuda's CudaBenchmark and PyTorch's copies and gloo
# all_reduce of CUDA tensors, in one command, on a machine with a GPU.
#
#   perf/scripts/cuda_bench.sh build        # where Maven reaches its registry: jars into perf/target-cuda/lib,
#                                           # a jlinked JRE into perf/target-cuda/devcarry (carry both dirs)
#   perf/scripts/cuda_bench.sh run [ARGS]   # on the GPU machine (Java 17, python3 with torch): both benchmarks
#   perf/scripts/cuda_bench.sh gpu-tests    # on the GPU machine: CudaDeviceTest and HostStagedCudaTest, no Maven
#                                           # (GPU_TEST_OPTS="-Drc.test.gpu.testTimeout=40s -Drc.test.gpu.deadlineSeconds=200",
#                                           #  -Drc.test.gpu.select=CudaDeviceTest or Class#method,... for fewer)
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
  # neither the benchmark nor the GPU tests use the replicated store, ArchUnit, Mockito, charts or PDFs, and the
  # modules' copies leave older duplicates: the device tool carries at most 64 MiB with the working tree
  rm -f "$LIB"/ratis-*.jar "$LIB"/archunit*.jar "$LIB"/pdfbox*.jar "$LIB"/fontbox-*.jar "$LIB"/mockito-*.jar \
        "$LIB"/byte-buddy-1*.jar "$LIB"/xchart-*.jar "$LIB"/VectorGraphics2D-*.jar "$LIB"/graphics2d-*.jar
  # JCuda's PTX compiler (24 MB of the natives) is never loaded: the copies use the runtime and the driver only
  python3 -c 'import sys, zipfile, os; p = sys.argv[1]; z = zipfile.ZipFile(p); o = zipfile.ZipFile(p + ".tmp", "w", zipfile.ZIP_DEFLATED)
[o.writestr(i, z.read(i)) for i in z.infolist() if "NvPTXCompiler" not in i.filename]; o.close(); os.replace(p + ".tmp", p)' "$LIB"/jcuda-natives-*.jar
  ls "$LIB"/assertj-core-*.jar | sort -V | head -n -1 | xargs -r rm -f   # two modules, two versions: the newest
  # the device machine has no JDK: a jlinked Java 17 runtime travels with the jars (about 13 MB packed)
  rm -rf perf/target-cuda/jre perf/target-cuda/devcarry && mkdir -p perf/target-cuda/devcarry
  "${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/jlink" --add-modules \
      java.base,java.logging,java.management,java.naming,java.instrument,jdk.attach,jdk.unsupported,java.sql,jdk.management,jdk.crypto.ec \
      --strip-debug --no-header-files --no-man-pages --output perf/target-cuda/jre
  # left uncompressed by jlink, the runtime packs to 13 MB with xz -9e (20 MB from jlink's own compression)
  tar -C perf/target-cuda -cf - jre | xz -9e -T0 > perf/target-cuda/devcarry/jre.tar.xz
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
       -Dio.netty.leakDetection.level=paranoid -XX:MaxDirectMemorySize=8g -Xmx4g ${GPU_TEST_OPTS:-} \
       -cp "$LIB/*:perf/target-cuda/cuda-test-classes" io.reactivecollectives.cuda.GpuTestLauncher
}

case "${1:-all}" in
  build) build ;;
  run) shift; run "$@" ;;
  gpu-tests) gpu_tests ;;
  all) build; run ;;
  *) echo "usage: $0 [build|run [ARGS]|gpu-tests]" >&2; exit 2 ;;
esac
