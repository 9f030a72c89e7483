#!/usr/bin/env bash
# Reduction kernel vs numpy, side by side (issue 2). Each round runs, one after the other:
# numpy's np.add(a, b, out=a) on 64 MiB of float32, the JMH ReduceKernelBenchmark (FLOAT32 SUM of
# 64 MiB) with the kernels this build uses (native when it made them), and the same benchmark with
# the Java kernels (-Drc.kernels.native=false). The summary gives each round's means and the
# medians over rounds, and the ratio of medians to numpy (target >= 0.80). Then: the fastest
# single calls (JMH single-shot against numpy's fastest call), and the allocation per call.
#
#   perf/scripts/reduce_kernel_bench.sh                 # 3 rounds, build dir "target"
#   ROUNDS=5 perf/scripts/reduce_kernel_bench.sh
#   RC_BUILD_DIR=target-x REBUILD=1 perf/scripts/reduce_kernel_bench.sh
#   JMH_ARGS="-p dtype=FLOAT32,FLOAT64,INT32 -p op=SUM,MAX" perf/scripts/reduce_kernel_bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR="${RC_BUILD_DIR:-target}"
PY="${PYTHON:-/usr/bin/python3}"
JAR="perf/${BUILD_DIR}/perf-0.1.0-SNAPSHOT-jmh.jar"
JMH_ARGS="${JMH_ARGS:--p dtype=FLOAT32 -p op=SUM}"
ROUNDS="${ROUNDS:-3}"
OUT="$(mktemp -d)"

if [[ ! -f "$JAR" || "${REBUILD:-0}" == 1 ]]; then
  mvn -B -q -Drc.build.dir="$BUILD_DIR" -pl perf -am package -DskipTests
fi

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(java -version 2>&1 | head -1)"
echo "# raw results in $OUT"
for r in $(seq 1 "$ROUNDS"); do
  echo "## round $r"
  "$PY" perf/scripts/numpy_add_bench.py --json | tee "$OUT/np$r.json"
  # shellcheck disable=SC2086
  java -jar "$JAR" ReduceKernelBenchmark $JMH_ARGS -rf json -rff "$OUT/native$r.json" | grep -E ':gbps .*thrpt'
  # shellcheck disable=SC2086
  java -jar "$JAR" ReduceKernelBenchmark $JMH_ARGS -jvmArgsAppend -Drc.kernels.native=false \
    -rf json -rff "$OUT/java$r.json" | grep -E ':gbps .*thrpt'
done
# single calls, timed one by one (JMH single-shot mode): the fastest call is the figure least
# disturbed by other processes on a shared machine, compared with numpy's fastest call
java -jar "$JAR" ReduceKernelBenchmark -p dtype=FLOAT32 -p op=SUM -bm ss -tu ms -wi 100 -i 300 \
  -rf json -rff "$OUT/jmh_ss.json" | grep -E '^ReduceKernelBenchmark.reduceInto '
# allocation per call, measured where calls are many (JMH's own per-iteration bookkeeping, a few KB,
# is spread over millions of calls): anything the kernel allocated would show as >= 16 B/op
java -jar "$JAR" ReduceKernelBenchmark -p dtype=FLOAT32,FLOAT16 -p op=SUM -p bytes=4096 -wi 2 -i 3 -prof gc \
  | grep -E '^ReduceKernelBenchmark.reduceInto(:gc.alloc.rate.norm)? '

"$PY" - "$OUT" "$ROUNDS" <<'PYEOF'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])

def jmh(name):
    res = {}
    for rec in json.load(open(os.path.join(out, name))):
        p = rec["params"]
        res[(p["dtype"], p["op"])] = rec["secondaryMetrics"]["gbps"]["score"]
    return res

rows = []
for r in range(1, rounds + 1):
    np_r = json.load(open(os.path.join(out, f"np{r}.json")))
    rows.append((np_r["gbps_mean"], jmh(f"native{r}.json"), jmh(f"java{r}.json"), np_r["gbps_best_call"]))
keys = sorted(rows[0][1])
print("round  numpy GB/s  " + "  ".join(f"{d} {o}: build's kernels / Java kernels" for d, o in keys))
for i, (np_mean, nat, jav, _) in enumerate(rows, 1):
    print(f"{i:5d}  {np_mean:10.2f}  " + "  ".join(f"{nat[k]:6.2f} / {jav[k]:6.2f}" for k in keys))
np_med = statistics.median(r[0] for r in rows)
for k in keys:
    nat = statistics.median(r[1][k] for r in rows)
    jav = statistics.median(r[2][k] for r in rows)
    print(f"median {k[0]} {k[1]}: build's kernels {nat:.2f} GB/s, Java kernels {jav:.2f} GB/s, numpy float32 add {np_med:.2f} GB/s"
          + (f" -> {nat / np_med:.0%} and {jav / np_med:.0%} of numpy" if k == ("FLOAT32", "SUM") else ""))
numpy_call = max(r[3] for r in rows)
for rec in json.load(open(os.path.join(out, "jmh_ss.json"))):
    ms = min(x for fork in rec["primaryMetric"]["rawData"] for x in fork)
    call = int(rec["params"]["bytes"]) / (ms * 1e-3) / 1e9
    print(f"FLOAT32 SUM fastest single call: JMH {call:.2f} GB/s ({ms:.3f} ms), numpy {numpy_call:.2f} GB/s "
          f"-> {call / numpy_call:.0%} of numpy")
PYEOF
