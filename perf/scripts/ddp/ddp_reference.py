#!/usr/bin/env python3
"""PyTorch DDP's own run of the trainer tests' small task, step for step, for
DdpReferenceTest (reactive-djl/src/test/resources/io/reactivecollectives/djl/torch-ddp-reference.txt).

The model is TinyTask's MLP [8 -> 32 -> 16 -> 4] with ReLU; 96 samples whose label is the argmax of
x[c] - 0.5 x[c + 4]; DistributedSampler(shuffle, seed 7) shards, batches of 8 per rank, cross-entropy,
100 steps of DDP (gloo, loopback) for each world size and optimizer. The file holds the data, the
initial parameters (state_dict order, row-major), every rank's loss at every step and rank 0's final
parameters. Floats are written as numpy's shortest float32 strings, which read back exactly.

    /usr/bin/python3 perf/scripts/ddp/ddp_reference.py > reactive-djl/src/test/resources/io/reactivecollectives/djl/torch-ddp-reference.txt
"""
import os
import sys
import tempfile

import numpy
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DistributedSampler

SAMPLES, FEATURES, CLASSES, BATCH, STEPS, SEED = 96, 8, 4, 8, 100, 7
WORLDS = (2, 4)
OPTIMIZERS = ("sgd", "momentum", "adam")


def task():
    g = torch.Generator().manual_seed(20261201)
    x = torch.randn(SAMPLES, FEATURES, generator=g)
    y = (x[:, :CLASSES] - 0.5 * x[:, CLASSES:2 * CLASSES]).argmax(dim=1)
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16),
                                torch.nn.ReLU(), torch.nn.Linear(16, CLASSES))
    return x, y, model


def optimizer(kind, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=0.1)
    if kind == "momentum":
        return torch.optim.SGD(params, lr=0.1, momentum=0.9)
    return torch.optim.Adam(params, lr=0.01)


def rank_main(rank, world, kind, init_file, out_dir):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank, world_size=world)
    x, y, model = task()
    ddp = DistributedDataParallel(model)
    opt = optimizer(kind, ddp.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()
    sampler = DistributedSampler(range(SAMPLES), num_replicas=world, rank=rank, shuffle=True, seed=SEED)
    losses, step, epoch = [], 0, 0
    while step < STEPS:
        sampler.set_epoch(epoch)
        order = list(sampler)
        for b in range(0, len(order) - BATCH + 1, BATCH):
            idx = torch.tensor(order[b:b + BATCH])
            opt.zero_grad()
            loss = loss_fn(ddp(x[idx]), y[idx])
            loss.backward()
            opt.step()
            losses.append(loss.item())
            step += 1
            if step == STEPS:
                break
        epoch += 1
    with open(os.path.join(out_dir, "%d.txt" % rank), "w") as f:
        f.write("loss %d %d %s %s\n" % (world, rank, kind, " ".join(str(numpy.float32(v)) for v in losses)))
        if rank == 0:
            for i, p in enumerate(model.parameters()):
                f.write("final %d %d %s %s\n" % (world, i, kind, floats(p)))
    dist.destroy_process_group()


def floats(t):
    return " ".join(str(v) for v in t.detach().reshape(-1).numpy())


def main():
    out = sys.stdout
    x, y, model = task()
    out.write("# torch %s; written by perf/scripts/ddp/ddp_reference.py\n" % torch.__version__)
    out.write("x %s\n" % floats(x))
    out.write("y %s\n" % " ".join(str(int(v)) for v in y))
    for i, p in enumerate(model.parameters()):
        out.write("init %d %s\n" % (i, floats(p)))
    for world in WORLDS:
        for kind in OPTIMIZERS:
            with tempfile.TemporaryDirectory() as d:
                mp.spawn(rank_main, args=(world, kind, os.path.join(d, "init"), d), nprocs=world, join=True)
                for r in range(world):
                    with open(os.path.join(d, "%d.txt" % r)) as f:
                        out.write(f.read())


if __name__ == "__main__":
    main()
