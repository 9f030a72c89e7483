#!/usr/bin/env python3
"""numpy's in-place vector add, the yardstick for the JMH ReduceKernelBenchmark (issue 2).

Times np.add(a, b, out=a) on two vectors of --bytes bytes (default 64 MiB of float32) and prints
the vector bytes reduced per second in GB/s (10^9 bytes), the figure ReduceKernelBenchmark reports
as "gbps". Measured as JMH measures: --iterations timed iterations of --time seconds each (after
--warmup iterations), each iteration's rate = bytes * calls / elapsed; reported are the mean of
the iterations (JMH's score), the best iteration and the best single call. Single-threaded, as
numpy's ufuncs are.

    /usr/bin/python3 perf/scripts/numpy_add_bench.py --bytes 67108864 --dtype float32
"""
import argparse
import json
import platform
import statistics
import time

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bytes", type=int, default=64 * 1024 * 1024, help="bytes per vector (default 64 MiB)")
    p.add_argument("--dtype", default="float32", help="numpy dtype (float32, float64, int32, ...)")
    p.add_argument("--op", default="add", choices=["add", "maximum"], help="ufunc applied in place")
    p.add_argument("--warmup", type=int, default=5, help="warm-up iterations")
    p.add_argument("--iterations", type=int, default=10, help="measured iterations")
    p.add_argument("--time", type=float, default=1.0, help="seconds per iteration")
    p.add_argument("--json", action="store_true", help="print one JSON line instead of text")
    args = p.parse_args()

    dtype = np.dtype(args.dtype)
    n = args.bytes // dtype.itemsize
    rng = np.random.default_rng(42)
    if dtype.kind == "f":
        a = rng.random(n).astype(dtype)
        b = np.full(n, 1e-6, dtype=dtype)
    else:
        a = rng.integers(0, 100, n).astype(dtype)
        b = np.ones(n, dtype=dtype)
    ufunc = getattr(np, args.op)
    nbytes = n * dtype.itemsize

    def iteration():
        calls, fastest = 0, float("inf")
        start = time.perf_counter()
        now = start
        while now - start < args.time:
            t0 = now
            ufunc(a, b, out=a)
            now = time.perf_counter()
            fastest = min(fastest, now - t0)
            calls += 1
        return nbytes * calls / (now - start) / 1e9, fastest

    for _ in range(args.warmup):
        iteration()
    rates, fastest = [], float("inf")
    for _ in range(args.iterations):
        rate, f = iteration()
        rates.append(rate)
        fastest = min(fastest, f)
    mean = statistics.fmean(rates)
    result = {"op": args.op, "dtype": dtype.name, "bytes": nbytes, "gbps_mean": round(mean, 2),
              "gbps_best_iteration": round(max(rates), 2), "gbps_best_call": round(nbytes / fastest / 1e9, 2),
              "iterations": [round(r, 2) for r in rates], "numpy": np.__version__,
              "python": platform.python_version()}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"numpy {np.__version__} np.{args.op}(a, b, out=a) {dtype.name} {nbytes} bytes: "
              f"mean {mean:.2f} GB/s over {args.iterations} iterations of {args.time:g} s, "
              f"best iteration {max(rates):.2f} GB/s, best call {nbytes / fastest / 1e9:.2f} GB/s")


if __name__ == "__main__":
    main()
