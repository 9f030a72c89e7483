#!/usr/bin/env python3
"""PyTorch's all_gather_object (gloo) on the same load as ObjectBench's allgather mode, for issue 42.

    /usr/bin/python3 perf/scripts/torch_object_bench.py --world 4 --bytes 100M --rounds 3 [--kind bytes|strings]
    /usr/bin/python3 perf/scripts/torch_object_bench.py --world 4 --kind keyed --keys 1000000 --overlap 0.1

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


def make(q, nbytes, kind):
    """Rank q's object: random bytes, or (strings) a list of 100-letter strings of about nbytes as JSON, as ObjectBench's."""
    r = random.Random(q)
    if kind == "bytes":
        return r.randbytes(nbytes)
    return ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(100)) for _ in range(max(0, nbytes - 2) // 103)]


def keyed(rank, world, keys, overlap, rounds):
    """The naive keyed all-reduce in PyTorch: all_gather_object of each rank's dict, then a merge on every rank."""
    shared = round(keys * overlap)
    r = random.Random(rank)
    mine = {(i * 2654435761 if i < shared else (rank + 1) << 40 | i): r.randrange(1024) / 8.0 for i in range(keys)}
    if rank == 0:
        print(f"# torch {__import__('torch').__version__}: all_gather_object of a dict of {keys} int keys per rank "
              f"({overlap:.0%} common to all {world} ranks), then a merge (sum) on every rank")
        print("# round  time_ms  result_keys")
    for k in range(rounds):
        dist.barrier()
        t0 = time.perf_counter()
        out = [None] * world
        dist.all_gather_object(out, mine)
        merged = {}
        for d in out:
            for key, v in d.items():
                merged[key] = merged.get(key, 0.0) + v
        ms = (time.perf_counter() - t0) * 1000
        stats = [None] * world
        dist.all_gather_object(stats, ms)
        if rank == 0:
            print("%7d  %7.0f  %11d" % (k, max(stats), len(merged)), flush=True)


def rank_main(rank, world, port, nbytes, rounds, kind, overlap):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    if kind == "keyed":
        keyed(rank, world, nbytes, overlap, rounds)
        dist.destroy_process_group()
        return
    mine = make(rank, nbytes, kind)
    want = [make(q, nbytes, kind) for q in range(world)]
    if rank == 0:
        print(f"# torch {__import__('torch').__version__} dist.all_gather_object (gloo) of {kind} "
              f"({nbytes} bytes per rank as {'bytes' if kind == 'bytes' else 'JSON'}), {world} ranks")
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
    ap.add_argument("--kind", choices=("bytes", "strings", "keyed"), default="bytes")
    ap.add_argument("--keys", default="1000000", help="keyed: entries per rank (--bytes is ignored)")
    ap.add_argument("--overlap", type=float, default=0.1)
    a = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    mp.spawn(rank_main, args=(a.world, port, size(a.keys) if a.kind == 'keyed' else size(a.bytes), a.rounds, a.kind, a.overlap), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
