#!/usr/bin/env python3
"""The PyTorch side of the CUDA benchmark (issue 8), printed in the same layout as
io.reactivecollectives.perf.CudaBenchmark so that both can be compared line by line:

    impl   what                bytes        time_us   GB/s

1. Pinned host <-> device copies: `host.to('cuda', non_blocking=True)` from a pinned tensor and
   `dev.to('cpu', non_blocking=True)` into pinned memory (`copy_` into a preallocated pinned
   tensor), each followed by torch.cuda.synchronize(), as the Java side waits for each copy's event.
2. c10d gloo all_reduce of a CUDA float32 tensor between 2 ranks that share GPU 0 (gloo stages
   CUDA tensors through host memory itself).

    /usr/bin/python3 perf/scripts/torch_cuda_copy_bench.py --sizes 67108864,1073741824 --allreduce-bytes 268435456
"""
import argparse
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def row(what, nbytes, seconds):
    print(f"{'torch':>6} {what:<22} {nbytes:>12} {seconds * 1e6:>12.1f} {nbytes / seconds / 1e9:>8.2f}", flush=True)


def copies(args):
    dev = torch.device("cuda", args.device)
    for n in args.sizes:
        host = torch.empty(n, dtype=torch.uint8).pin_memory()
        host.fill_(3)
        d = torch.empty(n, dtype=torch.uint8, device=dev)
        back = torch.empty(n, dtype=torch.uint8).pin_memory()
        for _ in range(args.warmup):
            d = host.to(dev, non_blocking=True)
            back.copy_(d, non_blocking=True)
        torch.cuda.synchronize()
        h2d, d2h = [], []
        for _ in range(args.iters):
            t0 = time.perf_counter()
            d = host.to(dev, non_blocking=True)
            torch.cuda.synchronize()
            t1 = time.perf_counter()
            back.copy_(d, non_blocking=True)
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            h2d.append(t1 - t0)
            d2h.append(t2 - t1)
        assert bool((back == 3).all()), "round trip lost bytes"
        h2d.sort()
        d2h.sort()
        row("h2d_pinned_median", n, h2d[len(h2d) // 2])
        row("d2h_pinned_median", n, d2h[len(d2h) // 2])
        row("h2d_pinned_best", n, h2d[0])
        row("d2h_pinned_best", n, d2h[0])
        del host, d, back
        torch.cuda.empty_cache()


def gloo_rank(rank, args, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.cuda.set_device(args.device)
    count = args.allreduce_bytes // 4
    x = torch.ones(count, dtype=torch.float32, device=torch.device("cuda", args.device))
    for _ in range(2):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    dist.barrier()
    times = []
    for _ in range(args.allreduce_iters):
        x.fill_(1.0)
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(x)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    assert float(x[0].item()) == 2.0 and float(x[-1].item()) == 2.0, "wrong sum"
    times.sort()
    t = torch.tensor([times[len(times) // 2], times[0]])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    if rank == 0:
        row("gloo_allreduce_median", args.allreduce_bytes, t[0].item())
        row("gloo_allreduce_best", args.allreduce_bytes, t[1].item())
    dist.destroy_process_group()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default=f"{64 << 20},{1 << 30}")
    p.add_argument("--iters", type=int, default=41)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--allreduce-bytes", type=int, default=256 << 20)
    p.add_argument("--allreduce-iters", type=int, default=9)
    p.add_argument("--skip-copies", action="store_true")
    p.add_argument("--skip-allreduce", action="store_true")
    a = p.parse_args()
    a.sizes = [int(s) for s in a.sizes.split(",")]
    print(f"# torch {torch.__version__} cuda {torch.version.cuda} device {torch.cuda.get_device_name(a.device)}", flush=True)
    print(f"{'impl':>6} {'what':<22} {'bytes':>12} {'time_us':>12} {'GB/s':>8}", flush=True)
    if not a.skip_copies:
        copies(a)
    if not a.skip_allreduce:
        mp.spawn(gloo_rank, args=(a, free_port()), nprocs=2, join=True)
