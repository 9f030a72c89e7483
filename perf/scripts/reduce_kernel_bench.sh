#!/usr/bin/env bash
# Reduction kernel vs numpy, in one session (issue 2): numpy's np.add(a, b, out=a) on 64 MiB of
# float32, then the JMH ReduceKernelBenchmark (FLOAT32 SUM 64 MiB, with -prof gc), then numpy
# again, and the ratio of the JMH figure to the mean of the two numpy figures (target >= 0.80).
#
#   perf/scripts/reduce_kernel_bench.sh            # build dir "target"
#   RC_BUILD_DIR=target-x perf/scripts/reduce_kernel_bench.sh
#   JMH_ARGS="-p dtype=FLOAT32,FLOAT64,BFLOAT16 -p op=SUM,MAX" perf/scripts/reduce_kernel_bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${RC_BUILD_DIR:-target}"
PY="${PYTHON:-/usr/bin/python3}"
JAR="perf/${BUILD_DIR}/perf-0.1.0-SNAPSHOT-jmh.jar"
JMH_ARGS="${JMH_ARGS:--p dtype=FLOAT32 -p op=SUM}"
OUT="$(mktemp -d)"

if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -B -q -Drc.build.dir="$BUILD_DIR" -pl perf -am package -DskipTests
fi

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(java -version 2>&1 | head -1)"
"$PY" perf/scripts/numpy_add_bench.py --json | tee "$OUT/np1.json"
# shellcheck disable=SC2086
java -jar "$JAR" ReduceKernelBenchmark $JMH_ARGS -prof gc -rf json -rff "$OUT/jmh.json" | grep -E '^(Benchmark|ReduceKernelBenchmark)'
# single calls, timed one by one (JMH single-shot mode): the fastest call is the figure least
# disturbed by other processes on a shared machine, compared with numpy's fastest call
java -jar "$JAR" ReduceKernelBenchmark -p dtype=FLOAT32 -p op=SUM -bm ss -tu ms -wi 100 -i 300 \
  -rf json -rff "$OUT/jmh_ss.json" | grep -E '^ReduceKernelBenchmark.reduceInto '
"$PY" perf/scripts/numpy_add_bench.py --json | tee "$OUT/np2.json"
# allocation per call, measured where calls are many (JMH's own per-iteration bookkeeping, a few KB,
# is spread over millions of calls): anything the kernel allocated would show as >= 16 B/op
java -jar "$JAR" ReduceKernelBenchmark -p dtype=FLOAT32,FLOAT16 -p op=SUM -p bytes=4096 -wi 2 -i 3 -prof gc \
  | grep -E '^ReduceKernelBenchmark.reduceInto(:gc.alloc.rate.norm)? '

"$PY" - "$OUT" <<'PYEOF'
import json, sys, os
out = sys.argv[1]
np1 = json.load(open(os.path.join(out, "np1.json")))
np2 = json.load(open(os.path.join(out, "np2.json")))
numpy_mean = (np1["gbps_mean"] + np2["gbps_mean"]) / 2
numpy_best = max(np1["gbps_best_iteration"], np2["gbps_best_iteration"])
numpy_call = max(np1["gbps_best_call"], np2["gbps_best_call"])
for r in json.load(open(os.path.join(out, "jmh_ss.json"))):
    ms = min(x for fork in r["primaryMetric"]["rawData"] for x in fork)
    call = int(r["params"]["bytes"]) / (ms * 1e-3) / 1e9
    print(f"FLOAT32 SUM fastest single call: JMH {call:.2f} GB/s ({ms:.3f} ms), numpy {numpy_call:.2f} GB/s "
          f"-> {call / numpy_call:.0%} of numpy")
for r in json.load(open(os.path.join(out, "jmh.json"))):
    p = r["params"]
    if p["dtype"] != "FLOAT32" or p["op"] != "SUM":
        continue
    g = r["secondaryMetrics"]["gbps"]
    gbps = g["score"]
    best = max(x for fork in g["rawData"] for x in fork)
    alloc = r["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score", float("nan"))
    print(f"FLOAT32 SUM {p['bytes']} bytes: JMH mean {gbps:.2f} GB/s, best iteration {best:.2f} GB/s; "
          f"numpy mean {numpy_mean:.2f} GB/s, best iteration {numpy_best:.2f} GB/s; "
          f"mean/mean {gbps / numpy_mean:.0%}, best/best {best / numpy_best:.0%}; JMH gc.alloc.rate.norm {alloc:.3f} B/op")
PYEOF
