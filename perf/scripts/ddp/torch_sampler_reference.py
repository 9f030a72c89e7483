#!/usr/bin/env python3
"""Writes the shards PyTorch's DistributedSampler hands each rank, for DistributedSamplerTest
(reactive-djl/src/test/resources/io/reactivecollectives/djl/torch-distributed-sampler.csv).

One line per (size, world, rank, seed, epoch, shuffle, drop_last) case:
    size,world,rank,seed,epoch,shuffle,drop_last,index index index ...
Run with Debian's torch (../shared/peers/setup.sh):
    /usr/bin/python3 perf/scripts/ddp/torch_sampler_reference.py > reactive-djl/src/test/resources/io/reactivecollectives/djl/torch-distributed-sampler.csv
"""
import sys

import torch
from torch.utils.data import DistributedSampler

CASES = [
    # size, world, seed, epochs, shuffle, drop_last
    (1, 1, 0, 1, True, False),
    (1, 2, 0, 1, True, False),
    (3, 5, 0, 2, True, False),
    (7, 3, 0, 2, True, False),
    (7, 3, 0, 2, True, True),
    (10, 4, 0, 1, False, False),
    (10, 4, 0, 1, False, True),
    (100, 4, 0, 3, True, False),
    (100, 4, 42, 2, True, False),
    (623, 2, 1, 1, True, False),
    (624, 2, 1, 1, True, False),
    (625, 3, 1, 1, True, True),
    (1000, 8, 123456789, 2, True, False),
    (1013, 6, 2 ** 32 + 5, 1, True, False),
    (2500, 3, -7, 1, True, True),
    (5000, 2, 2 ** 31 - 1, 1, True, False),
]


def main():
    out = sys.stdout
    out.write("# torch %s; written by perf/scripts/ddp/torch_sampler_reference.py\n" % torch.__version__)
    for size, world, seed, epochs, shuffle, drop_last in CASES:
        for epoch in range(epochs):
            for rank in range(world):
                s = DistributedSampler(range(size), num_replicas=world, rank=rank, shuffle=shuffle,
                                       seed=seed, drop_last=drop_last)
                s.set_epoch(epoch)
                out.write("%d,%d,%d,%d,%d,%s,%s,%s\n" % (size, world, rank, seed, epoch, str(shuffle).lower(),
                                                         str(drop_last).lower(), " ".join(str(i) for i in s)))


if __name__ == "__main__":
    main()
