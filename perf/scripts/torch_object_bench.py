#!/usr/bin/env python3
"""PyTorch's all_gather_object (gloo) on the same load as ObjectBench's allgather mode, for issue 42.

    /usr/bin/python3 perf/scripts/torch_object_bench.py --world 4 --bytes 100M --rounds 3

Each rank all-gathers a bytes object of --bytes (random, seeded by rank), checks every entry, and
reports the call's time and how much its peak resident set grew over the call (ru_maxrss is a
high-water mark: the first round's growth is the call's peak over the process before it; later
rounds only show growth past the first). Rank 0 prints the rows.
"""
import argparse
import os
import random
import resource
import socket
import time

import torch.distributed as dist
import torch.multiprocessing as mp


def size(s):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def rank_main(rank, world, port, nbytes, rounds):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    mine = random.Random(rank).randbytes(nbytes)
    want = [random.Random(q).randbytes(nbytes) for q in range(world)]
    if rank == 0:
        print(f"# torch {__import__('torch').__version__} dist.all_gather_object (gloo) of {nbytes} bytes per rank, {world} ranks")
        print("# round  time_ms  maxrss_growth_mb(max rank)  result_mb")
    for r in range(rounds):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        dist.barrier()
        t0 = time.perf_counter()
        out = [None] * world
        dist.all_gather_object(out, mine)
        ms = (time.perf_counter() - t0) * 1000
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
        assert out == want, "wrong result"
        del out
        stats = [None] * world
        dist.all_gather_object(stats, (ms, grew))
        if rank == 0:
            print("%7d  %7.0f  %26.0f  %9.0f" % (r, max(s[0] for s in stats), max(s[1] for s in stats) / 1e6,
                                                   nbytes * world / 1e6), flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=int, default=4)
    ap.add_argument("--bytes", default="100M")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    mp.spawn(rank_main, args=(a.world, port, size(a.bytes), a.rounds), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
