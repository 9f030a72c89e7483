#!/usr/bin/python3
"""PyTorch gloo's side of issue 45's loopback measurement (perf/scripts/loopback_tcp_cpu.sh): one rank of a
torchrun-style job (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT); the same rows as LoopbackCpu.java.
Arguments SIZE:WARMUP:ITERS. CPU: time.process_time() (user+sys of all the process's threads) around the
timed all-reduces, summed over the ranks."""
import sys, time, statistics
import torch, torch.distributed as dist

def parse(s):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * m[s[-1].upper()] if s[-1].upper() in m else int(s)

torch.set_num_threads(1)
dist.init_process_group("gloo")
n, rank = dist.get_world_size(), dist.get_rank()
if rank == 0:
    print(f"# gloo world={n} torch={torch.__version__}", flush=True)
for spec in sys.argv[1:]:
    b, warm, iters = spec.split(":"); nbytes, warm, iters = parse(b), int(warm), int(iters)
    x = torch.zeros(max(1, nbytes // 4), dtype=torch.float32)
    for _ in range(warm): dist.all_reduce(x)
    dist.barrier()
    ts = [0.0] * iters
    c0 = time.process_time(); w0 = time.perf_counter()
    for i in range(iters):
        t0 = time.perf_counter(); dist.all_reduce(x); ts[i] = time.perf_counter() - t0
    wall = time.perf_counter() - w0; c1 = time.process_time()
    cpu = torch.tensor([(c1 - c0) * 1e3 / iters], dtype=torch.float64); dist.all_reduce(cpu)
    med = statistics.median(ts) * 1e6
    if rank == 0:
        print(f"row {nbytes} {iters} {med:.2f} {wall * 1e6 / iters:.2f} {nbytes / (med / 1e6) / 1e9 * 2 * (n - 1) / n:.4f} {cpu.item():.4f}", flush=True)
dist.destroy_process_group()
