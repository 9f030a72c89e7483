#!/usr/bin/env python3
"""numpy's in-place vector add, the yardstick for the JMH ReduceKernelBenchmark (issue 2).

Times np.add(a, b, out=a) on two vectors of --bytes bytes (default 64 MiB of float32) and prints
the vector bytes reduced per second in GB/s (10^9 bytes), best and median over --repeats calls,
the same figure ReduceKernelBenchmark reports as "gbps". Single-threaded, as numpy's ufuncs are.

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
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--repeats", type=int, default=50)
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
    for _ in range(args.warmup):
        ufunc(a, b, out=a)
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        ufunc(a, b, out=a)
        times.append(time.perf_counter() - t0)
    nbytes = n * dtype.itemsize
    best = nbytes / min(times) / 1e9
    median = nbytes / statistics.median(times) / 1e9
    mean = nbytes / statistics.fmean(times) / 1e9
    result = {"op": args.op, "dtype": dtype.name, "bytes": nbytes, "gbps_best": round(best, 2),
              "gbps_median": round(median, 2), "gbps_mean": round(mean, 2), "numpy": np.__version__,
              "python": platform.python_version()}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"numpy {np.__version__} np.{args.op}(a, b, out=a) {dtype.name} {nbytes} bytes: "
              f"best {best:.2f} GB/s, median {median:.2f} GB/s, mean {mean:.2f} GB/s over {args.repeats} calls")


if __name__ == "__main__":
    main()
