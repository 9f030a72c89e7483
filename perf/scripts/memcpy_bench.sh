#!/usr/bin/env bash
# The machine's memory-copy bandwidth, the ceiling of a shared-memory transport (issue 19): memcpy
# of SIZE bytes (default 64 MiB, and 1 MiB, which stays in the caches) by 1 and by 2 threads at once,
# median GB/s of copied bytes over 20 copies each (a copy reads and writes SIZE: the memory moves 2x).
#   perf/scripts/memcpy_bench.sh            # needs a C compiler (cc or gcc)
set -euo pipefail
dir="$(mktemp -d)"; trap 'rm -rf "$dir"' EXIT
cat > "$dir/memcpy_bench.c" <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static size_t size; static int reps = 20;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmp(const void *a, const void *b) { double x = *(const double *) a, y = *(const double *) b; return (x > y) - (x < y); }
static void *run(void *out) {
  char *src = aligned_alloc(4096, size), *dst = aligned_alloc(4096, size);
  memset(src, 1, size); memset(dst, 2, size);
  double *gbs = out;
  for (int i = 0; i < reps; i++) { double t0 = now(); memcpy(dst, src, size); gbs[i] = size / (now() - t0) / 1e9; }
  qsort(gbs, reps, sizeof(double), cmp);
  free(src); free(dst); return NULL;
}
int main(int argc, char **argv) {
  size = strtoull(argv[1], NULL, 10); int threads = atoi(argv[2]);
  pthread_t t[8]; double gbs[8][64];
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, gbs[i]);
  double sum = 0;
  for (int i = 0; i < threads; i++) { pthread_join(t[i], NULL); sum += gbs[i][reps / 2]; }
  printf("memcpy %zu bytes, %d thread(s): %.2f GB/s copied (median of %d, summed over threads)\n", size, threads, sum, reps);
  return 0;
}
C
cc=$(command -v cc || command -v gcc)
"$cc" -O2 -pthread -o "$dir/memcpy_bench" "$dir/memcpy_bench.c"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p')"
for size in ${SIZES:-1048576 67108864}; do
  for threads in 1 2; do
    "$dir/memcpy_bench" "$size" "$threads"
  done
done
