#!/usr/bin/env bash
# Builds the native reduction kernels (rc_reduce_kernels.c) into the module's classes, where
# NativeReduceKernels finds them as a resource:
#   <classes>/io/reactivecollectives/core/kernels/native/<os>-<arch>/librc_reduce_kernels.so
# Run by Maven (reactive-core/pom.xml, phase process-classes):
#   build-native.sh <classes dir> <dir of javac -h headers> <java.home>
# Without a C compiler (cc, gcc or $CC), or on an OS other than Linux, it says so and builds
# nothing: the library then runs its Java kernels, which give the same results, slower.
# -Drc.native.skip=true on the Maven command line skips it too. A compiler that is present but
# fails stops the build: a broken kernel must not pass unnoticed. Warnings are shown, not fatal (a
# newer compiler's new warnings should not break a user's build); a C definition that does not
# match the JNI header is an error either way.
set -euo pipefail
classes="$1"
headers="$2"
java_home="$3"
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/rc_reduce_kernels.c"
waits="$here/rc_waits.c"
affinity="$here/rc_affinity.c"

skip() {
  echo "[rc-native] not built: $1; the Java reduction kernels will be used (same results, slower)"
  exit 0
}

case "$(uname -s)" in
  Linux) os=linux ;;
  *) skip "native kernels are built for Linux only (this is $(uname -s))" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) skip "unknown architecture $(uname -m)" ;;
esac
cc="${CC:-}"
if [[ -z "$cc" ]]; then
  cc="$(command -v cc || command -v gcc || true)"
fi
[[ -n "$cc" ]] || skip "no C compiler (cc or gcc) on PATH"
[[ -f "$java_home/include/jni.h" ]] || skip "no jni.h under $java_home/include (a JRE, not a JDK?)"

out="$classes/io/reactivecollectives/core/kernels/native/$os-$arch"
lib="$out/librc_reduce_kernels.so"
header="$headers/io_reactivecollectives_core_kernels_NativeReduceKernels.h"
waits_header="$headers/io_reactivecollectives_core_kernels_NativeWaits.h"
affinity_header="$headers/io_reactivecollectives_core_kernels_NativeAffinity.h"
if [[ -f "$lib" && "$lib" -nt "$src" && "$lib" -nt "$waits" && "$lib" -nt "$affinity" && "$lib" -nt "$0" ]]; then
  echo "[rc-native] up to date: $lib"
  exit 0
fi
# javac -h writes the header of NativeReduceKernels' native methods; including it makes the compiler
# check that the C definitions match the Java declarations (it is missing only when javac had
# nothing to recompile and the header was deleted since).
check_header=()
if [[ -f "$header" ]]; then
  check_header=(-I"$headers" -include "$header")
else
  echo "[rc-native] warning: $header missing, the JNI signatures are not checked in this build"
fi
check_waits=()
if [[ -f "$waits_header" ]]; then
  check_waits=(-include "$waits_header")
fi
if [[ -f "$affinity_header" ]]; then
  check_waits+=(-include "$affinity_header")
fi
mkdir -p "$out"
"$cc" -O3 -fPIC -shared -std=c11 -Wall -Wextra -fno-strict-aliasing \
  -D_GNU_SOURCE -I"$java_home/include" -I"$java_home/include/$os" "${check_header[@]}" "${check_waits[@]}" \
  -o "$lib" "$src" "$waits" "$affinity"
echo "[rc-native] built $out/librc_reduce_kernels.so with $("$cc" --version | head -1)"
