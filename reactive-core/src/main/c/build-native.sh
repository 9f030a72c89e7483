#!/usr/bin/env bash
# Builds one JNI library of a module into its classes, where its Java side finds it as a resource:
#   <classes>/<resource dir>/<os>-<arch>/lib<name>.so
# Run by Maven at phase process-classes, by reactive-core for its reduction kernels
# (rc_reduce_kernels.c -> librc_reduce_kernels.so) and by reactive-transport for the futex waits and
# thread placement of its shared memory (rc_waits.c, rc_affinity.c -> librc_shm.so):
#   build-native.sh <classes dir> <dir of javac -h headers> <java.home> <resource dir> <name> \
#                   <what runs without it> <C source>...
# Without a C compiler (cc, gcc or $CC), or on an OS other than Linux, it says so and builds
# nothing: the module then runs without the library (the words of the sixth argument say how).
# -Drc.native.skip=true on the Maven command line skips it too. A compiler that is present but
# fails stops the build: broken native code must not pass unnoticed. Warnings are shown, not fatal
# (a newer compiler's new warnings should not break a user's build); a C definition that does not
# match the JNI header of its Java class is an error either way: every header javac -h wrote for
# the module is included.
set -euo pipefail
if [[ $# -lt 7 ]]; then
  echo "usage: $0 <classes> <headers> <java.home> <resource dir> <name> <fallback> <source.c>..." >&2
  exit 2
fi
classes="$1"
headers="$2"
java_home="$3"
resource_dir="$4"
name="$5"
fallback="$6"
shift 6
sources=("$@")

skip() {
  echo "[rc-native] lib$name.so not built: $1; $fallback"
  exit 0
}

case "$(uname -s)" in
  Linux) os=linux ;;
  *) skip "native libraries are built for Linux only (this is $(uname -s))" ;;
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

out="$classes/$resource_dir/$os-$arch"
lib="$out/lib$name.so"
up_to_date=1
for f in "${sources[@]}" "$0"; do
  [[ -f "$f" ]] || { echo "[rc-native] no such source: $f" >&2; exit 1; }
  if [[ ! -f "$lib" || ! "$lib" -nt "$f" ]]; then
    up_to_date=0
  fi
done
if [[ "$up_to_date" == 1 ]]; then
  echo "[rc-native] up to date: $lib"
  exit 0
fi
# javac -h writes a header for each class with native methods; including them makes the compiler
# check that the C definitions match the Java declarations (they are missing only when javac had
# nothing to recompile and the headers were deleted since).
check_headers=()
shopt -s nullglob
for h in "$headers"/*.h; do
  check_headers+=(-include "$h")
done
shopt -u nullglob
if [[ ${#check_headers[@]} -eq 0 ]]; then
  echo "[rc-native] warning: no JNI headers in $headers, the JNI signatures are not checked in this build"
fi
mkdir -p "$out"
"$cc" -O3 -fPIC -shared -std=c11 -Wall -Wextra -fno-strict-aliasing \
  -D_GNU_SOURCE -I"$java_home/include" -I"$java_home/include/$os" -I"$headers" "${check_headers[@]}" \
  -o "$lib" "${sources[@]}"
echo "[rc-native] built $lib with $("$cc" --version | head -1)"
