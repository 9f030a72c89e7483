#!/usr/bin/python3
"""PyTorch gloo all-reduce as one rank of a torchrun-style job (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT from the environment), for runs across hosts (perf/scripts/multihost_compare.sh).
Rank 0 prints nccl-tests rows: op bytes count time_us algbw busbw. Median of --repeat timings."""
import argparse, os, statistics, time
import torch, torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--min", type=int, default=64 << 20); p.add_argument("--max", type=int, default=64 << 20)
p.add_argument("--step", type=int, default=4); p.add_argument("--iters", type=int, default=5)
p.add_argument("--repeat", type=int, default=3)
a = p.parse_args()
torch.set_num_threads(1)
dist.init_process_group("gloo")
n, rank = dist.get_world_size(), dist.get_rank()
if rank == 0:
    print(f"# torch {torch.__version__} gloo world={n} op=all_reduce", flush=True)
size = a.min
while size <= a.max:
    count = max(1, size // 4)
    x = torch.ones(count, dtype=torch.float32)
    for _ in range(2): dist.all_reduce(x)
    times = []
    for _ in range(a.repeat):
        dist.barrier(); t0 = time.perf_counter()
        for _ in range(a.iters): dist.all_reduce(x)
        t = torch.tensor([(time.perf_counter() - t0) / a.iters]); dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times.append(t.item())
    dt = statistics.median(times)
    if rank == 0:
        algbw = count * 4 / dt / 1e9
        print(f"{'all_reduce':>14} {count*4:>12} {count:>10} {dt*1e6:>10.1f} {algbw:>8.3f} {algbw*2*(n-1)/n:>8.3f}"
              f"  # spread {min(times)*1e6:.0f}-{max(times)*1e6:.0f} us", flush=True)
    size *= a.step
dist.destroy_process_group()
