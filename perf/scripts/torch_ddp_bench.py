#!/usr/bin/env python3
"""PyTorch DDP (gloo, CPU) on the MLP and batch of io.reactivecollectives.samples.train.DataParallelTraining.

Spawns --nproc ranks on this machine (one torch thread each), trains the same synthetic
classification task, and prints ms/step and the share of step time spent in communication
(measured with a DDP comm hook that times each bucket's all-reduce future, wall time from the
first bucket's launch to the last bucket's completion, as the Java side reports it).

    /usr/bin/python3 perf/scripts/torch_ddp_bench.py --nproc 2 --steps 2000 --batch 32
"""
import argparse
import json
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_data(args, rank, step):
    # the same generator structure as the Java sample: a fixed random teacher network labels gaussian inputs
    g = torch.Generator().manual_seed(args.seed * 1_000_003 + step * 97 + rank)
    x = torch.randn(args.batch, args.input, generator=g)
    return x


class Timing:
    def __init__(self):
        self.comm = 0.0
        self.start = None
        self.inflight = 0


def timed_allreduce_hook(timing):
    def hook(state, bucket):
        t0 = time.perf_counter()
        if timing.inflight == 0:
            timing.start = t0
        timing.inflight += 1
        tensor = bucket.buffer().div_(dist.get_world_size())
        fut = dist.all_reduce(tensor, async_op=True).get_future()

        def done(f):
            timing.inflight -= 1
            if timing.inflight == 0:
                timing.comm += time.perf_counter() - timing.start
            return f.value()[0]
        return fut.then(done)
    return hook


def worker(rank, world, port, args, out_q):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(args.seed)
    dims = [args.input] + [args.hidden] * args.layers
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(dims[-1], args.classes))
    model = nn.Sequential(*layers)
    teacher = nn.Linear(args.input, args.classes)
    ddp = DDP(model)
    timing = Timing()
    ddp.register_comm_hook(None, timed_allreduce_hook(timing))
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    # pre-generate the data so that data generation is not timed (the Java side generates on the fly)
    xs = [make_data(args, rank, s) for s in range(args.steps)]
    with torch.no_grad():
        ys = [teacher(torch.tanh(x)).argmax(dim=1) for x in xs]
    warm = min(args.warmup, args.steps // 2)
    dist.barrier()
    t0 = None
    comm0 = 0.0
    loss = None
    tail = []
    for s in range(args.steps):
        if s == warm:
            dist.barrier()
            t0 = time.perf_counter()
            comm0 = timing.comm
        opt.zero_grad(set_to_none=True)
        out = ddp(xs[s])
        loss = loss_fn(out, ys[s])
        loss.backward()
        opt.step()
        if s >= args.steps - 100:
            tail.append(loss.detach())
    dist.barrier()
    elapsed = time.perf_counter() - t0
    steps = args.steps - warm
    res = {"rank": rank, "ms_per_step": 1000 * elapsed / steps, "comm_share": (timing.comm - comm0) / elapsed,
           "final_loss": float(torch.stack(tail).mean()), "params": sum(p.numel() for p in model.parameters())}
    out_q.put(res)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--batch", type=int, default=32, help="per-rank batch")
    p.add_argument("--input", type=int, default=32)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--classes", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=worker, args=(r, args.nproc, port, args, q)) for r in range(args.nproc)]
    for pr in procs:
        pr.start()
    results = sorted((q.get() for _ in procs), key=lambda r: r["rank"])
    for pr in procs:
        pr.join()
    ms = max(r["ms_per_step"] for r in results)
    comm = sum(r["comm_share"] for r in results) / len(results)
    summary = {"framework": "pytorch-ddp-gloo", "torch": torch.__version__, "world": args.nproc,
               "batch_per_rank": args.batch, "params": results[0]["params"], "steps_timed": args.steps - min(args.warmup, args.steps // 2),
               "ms_per_step": round(ms, 3), "comm_share": round(comm, 3), "final_loss_mean100": round(results[0]["final_loss"], 4)}
    if args.json:
        print(json.dumps(summary))
    else:
        print("PyTorch %s DDP gloo, %d ranks, MLP %d-%s-%d (%d params), batch %d/rank: %.3f ms/step, communication %.1f%% of step time, loss (mean of the last 100 steps) %.4f"
              % (torch.__version__, args.nproc, args.input, "x".join([str(args.hidden)] * args.layers), args.classes,
                 summary["params"], args.batch, ms, 100 * comm, summary["final_loss_mean100"]))


if __name__ == "__main__":
    main()
