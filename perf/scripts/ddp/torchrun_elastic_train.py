#!/usr/bin/env python3
"""PyTorch DDP (gloo, CPU) training of the main job's MLP, written as torchrun's docs tell users to
write a fault-tolerant job: the PyTorch peer of issue 40's fault run (perf/scripts/torchrun_kills.sh).

Same model and work per step as io.reactivecollectives.samples.train.DataParallelTraining and
perf/scripts/torch_ddp_bench.py: MLP [32, 128, 128, 8] (ReLU), batch 32 per rank, SGD lr 0.05
momentum 0.9, cross-entropy, synthetic data (gaussian inputs labelled by a fixed random teacher; the
batch of (rank, step) is a function of the seed, the rank and the step, so a resumed attempt sees the
same data). One torch thread per process.

torchrun restarts the whole worker group when a worker dies (`--max_restarts`); the job survives
only through its checkpoint (torchrun docs, "Train script"): rank 0 saves model, optimizer and step
every --checkpoint-every steps (default 300 = 5% of 6000 steps, the cadence of the progress lines)
to <run-dir>/checkpoint.pt (written to a temporary file, then os.replace), and every process loads it
on start (each restart) if present and resumes after its step.

Rank 0 prints (times are wall-clock ms since the epoch):
    start attempt=<TORCHELASTIC_RESTART_COUNT> resumed_from=<step> at <ms> ms (process started at <ms> ms; torch, blas)
    ready attempt=<n>: process group of <w> ranks and DDP up at <ms> ms
    caught up attempt=<n>: step <s> (the previous attempt's last completed step) at <ms> ms
    step <N>/<TOTAL> loss <l> at <ms> ms (attempt <n>)
    steps executed: <x> over <k> attempts (...); redone: <x - TOTAL>
    parameters identical on all <w> ranks: yes|no

Every process records its attempt's resumed_from and last completed step in
<run-dir>/progress-a<attempt>-r<rank> (one pwrite per step), which survives a SIGKILL; the executed
steps of an attempt are the largest last step of its ranks minus its resumed_from.

    torchrun --nproc_per_node 4 --max_restarts 3 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:0 \
        perf/scripts/ddp/torchrun_elastic_train.py --steps 6000 --run-dir /tmp/run1
"""
import time

PROCESS_START_MS = int(time.time() * 1000)  # before `import torch`, which takes seconds here

import argparse
import glob
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def now_ms():
    return int(time.time() * 1000)


def blas():
    """The BLAS library this process mapped (Debian's torch 1.13 links libblas.so.3: see ddp/README.md, "BLAS")."""
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1].rsplit("/", 1)[-1] for line in f if "blas" in line.split()[-1]}
    return ",".join(sorted(libs)) or "none mapped"


def build_model(args):
    dims = [args.input] + [args.hidden] * args.layers
    layers = []
    for a, b in zip(dims[:-1], dims[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(dims[-1], args.classes))
    return nn.Sequential(*layers)


def batch(args, teacher, rank, step):
    g = torch.Generator().manual_seed(args.seed * 1_000_003 + step * 97 + rank)
    x = torch.randn(args.batch, args.input, generator=g)
    with torch.no_grad():
        y = teacher(torch.tanh(x)).argmax(dim=1)
    return x, y


def save_checkpoint(path, model, opt, step):
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step}, tmp)
    os.replace(tmp, path)  # atomic: a kill during the save leaves the previous checkpoint


def read_progress(run_dir, attempt):
    """(resumed_from, largest last step over the ranks) of an attempt, from its progress files."""
    resumed, last = None, None
    for f in glob.glob(os.path.join(run_dir, "progress-a%d-r*" % attempt)):
        with open(f) as fh:
            parts = fh.read().split()
        if len(parts) >= 2:
            resumed = int(parts[0])
            last = int(parts[1]) if last is None else max(last, int(parts[1]))
    return resumed, last


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=6000)
    p.add_argument("--log-every", type=int, default=300)
    p.add_argument("--checkpoint-every", type=int, default=300,
                   help="steps between checkpoints (default 300: 5%% of 6000 steps, the progress-line cadence)")
    p.add_argument("--run-dir", required=True, help="checkpoint and progress files (shared by the attempts)")
    p.add_argument("--batch", type=int, default=32, help="per-rank batch")
    p.add_argument("--input", type=int, default=32)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--classes", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()

    torch.set_num_threads(1)
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    os.makedirs(args.run_dir, exist_ok=True)
    ckpt = os.path.join(args.run_dir, "checkpoint.pt")

    torch.manual_seed(args.seed)  # the same initial weights and teacher on every rank
    model = build_model(args)
    teacher = nn.Linear(args.input, args.classes)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    resumed = 0
    if os.path.exists(ckpt):
        state = torch.load(ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        resumed = state["step"]
    if rank == 0:
        print("start attempt=%d resumed_from=%d at %d ms (process started at %d ms; torch %s, blas %s, %d thread)"
              % (attempt, resumed, now_ms(), PROCESS_START_MS, torch.__version__, blas(), torch.get_num_threads()),
              flush=True)
    prev_last = read_progress(args.run_dir, attempt - 1)[1] if attempt > 0 else None

    progress = os.open(os.path.join(args.run_dir, "progress-a%d-r%d" % (attempt, rank)),
                       os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)

    def record(last):
        os.pwrite(progress, b"%10d %10d\n" % (resumed, last), 0)

    record(resumed)
    dist.init_process_group("gloo")
    ddp = DDP(model)
    loss_fn = nn.CrossEntropyLoss()
    if rank == 0:
        print("ready attempt=%d: process group of %d ranks and DDP up at %d ms" % (attempt, world, now_ms()), flush=True)

    step = resumed
    try:
        while step < args.steps:
            x, y = batch(args, teacher, rank, step)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(ddp(x), y)
            loss.backward()
            opt.step()
            step += 1
            record(step)
            if rank == 0:
                if step == prev_last:
                    print("caught up attempt=%d: step %d (the previous attempt's last completed step) at %d ms"
                          % (attempt, step, now_ms()), flush=True)
                if step % args.checkpoint_every == 0:
                    save_checkpoint(ckpt, model, opt, step)
                if step % args.log_every == 0:
                    print("step %5d/%d  loss %.4f  at %d ms (attempt %d)"
                          % (step, args.steps, loss.item(), now_ms(), attempt), flush=True)
        # the end: compare the parameters of all ranks, count the steps of all attempts
        flat = torch.cat([q.detach().reshape(-1) for q in model.parameters()])
        lo, hi = flat.clone(), flat.clone()
        dist.all_reduce(lo, op=dist.ReduceOp.MIN)
        dist.all_reduce(hi, op=dist.ReduceOp.MAX)
        dist.barrier()
    except RuntimeError as e:  # a peer died: torchrun stops the group and restarts it
        print("rank %d attempt %d: collective failed after step %d: %s"
              % (rank, attempt, step, str(e).splitlines()[0][:160]), file=sys.stderr, flush=True)
        sys.exit(1)
    if rank == 0:
        per = []
        for a in range(attempt + 1):
            r, last = read_progress(args.run_dir, a)
            if r is not None:
                per.append((a, r, last))
        executed = sum(last - r for _, r, last in per)
        print("steps executed: %d over %d attempts (%s); redone: %d"
              % (executed, len(per), ", ".join("attempt %d: %d..%d" % t for t in per), executed - args.steps),
              flush=True)
        print("parameters identical on all %d ranks: %s" % (world, "yes" if torch.equal(lo, hi) else "no"), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
