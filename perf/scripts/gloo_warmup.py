#!/usr/bin/python3
"""PyTorch gloo's warm-up curve, the same rows as io.reactivecollectives.perf.WarmupCurve: one rank of a
torchrun-style job; a loop of all-reduces of SIZE bytes for SECONDS from START_MS (ms since the epoch,
set by the launching script). Rank 0 prints `first_op_s`, `op <i> <end_s> <ms> <busbw>` and the CPU
time per all-reduce over the second half of the loop summed over the ranks (time.process_time: all
threads of the process)."""
import os, sys, time
start = int(os.environ.get("START_MS", str(int(time.time() * 1000)))) / 1e3
import torch, torch.distributed as dist

size = int(sys.argv[1]) if len(sys.argv) > 1 else 64 << 20
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 40
torch.set_num_threads(1)
dist.init_process_group("gloo")
n, rank = dist.get_world_size(), dist.get_rank()
x = torch.zeros(size // 4, dtype=torch.float32)
if rank == 0:
    print(f"first_op_s {time.time() - start:.3f}", flush=True)
ops, cpu, ends, more = 0, [], [], True
while more:
    t0 = time.perf_counter(); dist.all_reduce(x); t1 = time.perf_counter()
    end = time.time() - start; ops += 1; cpu.append(time.process_time()); ends.append(end)
    if rank == 0:
        ms = (t1 - t0) * 1e3
        print(f"op {ops} {end:.3f} {ms:.2f} {size / (ms / 1e3) / 1e9 * 2 * (n - 1) / n:.4f}", flush=True)
    go = torch.tensor([1.0 if rank == 0 and end < seconds else 0.0]); dist.all_reduce(go, op=dist.ReduceOp.MAX)
    more = go.item() > 0
f = ops // 2
mine = torch.tensor([(cpu[-1] - cpu[f]) * 1e3 / (ops - 1 - f) if ops - f > 1 else float("nan")], dtype=torch.float64)
dist.all_reduce(mine)
if rank == 0:
    print(f"cpu_ms_per_op {mine.item():.1f} ops {ops - 1 - f} window_s {ends[f]:.1f}-{ends[-1]:.1f}", flush=True)
dist.destroy_process_group()
