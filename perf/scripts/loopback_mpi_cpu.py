#!/usr/bin/python3
"""Open MPI's side of issue 45's loopback measurement (perf/scripts/loopback_tcp_cpu.sh), under mpirun
(--mca btl tcp,self --mca btl_tcp_if_include lo for TCP over loopback); the same rows as LoopbackCpu.java.
Arguments SIZE:WARMUP:ITERS. mpi4py Allreduce of numpy float32 (out of place, as mpi_bench.py). CPU:
time.process_time() (user+sys of all the process's threads) around the timed all-reduces, summed over the ranks."""
import sys, time, statistics
import numpy as np
from mpi4py import MPI

def parse(s):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * m[s[-1].upper()] if s[-1].upper() in m else int(s)

c = MPI.COMM_WORLD; n = c.Get_size(); rank = c.Get_rank()
if rank == 0:
    print(f"# mpi world={n} {MPI.Get_library_version().split(',')[0]}", flush=True)
for spec in sys.argv[1:]:
    b, warm, iters = spec.split(":"); nbytes, warm, iters = parse(b), int(warm), int(iters)
    x = np.zeros(max(1, nbytes // 4), np.float32); y = np.empty_like(x)
    for _ in range(warm): c.Allreduce(x, y, MPI.SUM)
    c.Barrier()
    ts = [0.0] * iters
    c0 = time.process_time(); w0 = time.perf_counter()
    for i in range(iters):
        t0 = time.perf_counter(); c.Allreduce(x, y, MPI.SUM); ts[i] = time.perf_counter() - t0
    wall = time.perf_counter() - w0; c1 = time.process_time()
    cpu = c.allreduce((c1 - c0) * 1e3 / iters, MPI.SUM)
    med = statistics.median(ts) * 1e6
    if rank == 0:
        print(f"row {nbytes} {iters} {med:.2f} {wall * 1e6 / iters:.2f} {nbytes / (med / 1e6) / 1e9 * 2 * (n - 1) / n:.4f} {cpu:.4f}", flush=True)
