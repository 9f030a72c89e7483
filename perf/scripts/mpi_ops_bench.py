#!/usr/bin/python3
"""Open MPI (mpi4py, numpy float32) all_reduce, broadcast and barrier on one host, in the nccl-tests
layout, for perf/scripts/peer_compare.sh (the shared peers' mpi_bench.py runs Allreduce only).
  mpirun --allow-run-as-root --oversubscribe -np 2 /usr/bin/python3 perf/scripts/mpi_ops_bench.py broadcast 67108864
A barrier row's bytes are the size swept (a barrier moves no data); its busbw is 0."""
import sys, time
import numpy as np
from mpi4py import MPI
c = MPI.COMM_WORLD; n = c.Get_size(); r = c.Get_rank()
op = sys.argv[1] if len(sys.argv) > 1 else "all_reduce"
mx = int(sys.argv[2]) if len(sys.argv) > 2 else 64 << 20
factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "barrier": 0.0}[op]
if r == 0:
    print(f"# Open MPI {MPI.Get_library_version().split(',')[0]} world={n} op={op}", flush=True)
    print(f"{'op':>14} {'bytes':>12} {'count':>10} {'time_us':>10} {'algbw':>8} {'busbw':>8}", flush=True)
size = 4
while size <= mx:
    count = max(1, size // 4)
    x = np.ones(count, np.float32); y = np.empty_like(x)
    iters = 200 if size < (1 << 20) else 20
    if op == "all_reduce":
        f = lambda: c.Allreduce(x, y, MPI.SUM)
    elif op == "broadcast":
        f = lambda: c.Bcast(x, root=0)
    else:
        f = lambda: c.Barrier()
    for _ in range(3): f()
    c.Barrier(); t0 = time.perf_counter()
    for _ in range(iters): f()
    dt = c.allreduce((time.perf_counter() - t0) / iters, MPI.MAX)
    if r == 0:
        algbw = count * 4 / dt / 1e9
        print(f"{op:>14} {count*4:>12} {count:>10} {dt*1e6:>10.1f} {algbw:>8.3f} {algbw*factor:>8.3f}", flush=True)
    size *= 4
