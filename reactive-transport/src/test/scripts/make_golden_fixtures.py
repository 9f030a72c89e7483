#!/usr/bin/env python3
"""Golden fixtures for the full collective set, computed by PyTorch's gloo backend.

Run by hand (not by CI), from the repository root:

    /usr/bin/python3 reactive-transport/src/test/scripts/make_golden_fixtures.py

(`bash ../shared/peers/setup.sh` installs PyTorch with gloo.) For world sizes 2, 3 and 4 it
spawns that many ranks with torch.multiprocessing on loopback (ephemeral port), runs every op on
seeded inputs and writes one JSON file per op to
reactive-transport/src/test/resources/golden/<op>.json. The inputs are a pure function of the
case, so the script is reproducible; the outputs are what gloo computed.

File layout (every file):
    {"op": ..., "backend": "gloo", "torch_version": ..., "how": <how the outputs were computed>,
     "cases": [{"world_size": W, ...op fields..., "inputs": [per rank], "outputs": [per rank]}]}
A tensor is {"dtype": <torch name>, "shape": [...], "data": [flat row-major values]}. Float
values are the exact values of the tensor's dtype (printed as Python floats, i.e. doubles).

Value choices that make an exact comparison meaningful whatever the summation order:
floating SUM / AVG inputs are multiples of 1/8 in [-8, 8] (every partial sum is exact even in
float16); integer AVG inputs are within a quarter of the type's range (the sum never wraps); int64 values lie in
[-2^40, 2^40]; PRODUCT inputs are in {+-0.5, +-1, +-1.5, +-2}; integer types take their full range
(wrap-around on overflow is order-independent). gloo 1.13 gaps, and what was done instead:
  * empty tensors: gloo 1.13's allgather, gather, scatter and alltoall die with SIGFPE on them,
    so only broadcast and the reductions have size-0 cases (the Java tests cover size 0 everywhere).
  * bool and bfloat16: gloo 1.13 rejects them ("Invalid scalar type"): no fixtures.
  * ReduceOp.AVG: gloo rejects it: SUM through gloo, then divided by the world size in the
    tensor's dtype (integers: truncation toward zero), as c10d defines AVG.
  * all_gather_into_tensor (_allgather_base): "no support for _allgather_base in Gloo": gloo's
    all_gather into a list, then torch.cat along dim 0 (the equivalence stated in torch's
    documentation of all_gather_into_tensor).
  * reduce_scatter / reduce_scatter_tensor: "ProcessGroupGloo does not support reduce_scatter":
    gloo all_reduce of every input (of the flat input), then rank r keeps piece r (chunk r).
  * all_to_all (lists): "ProcessGroup gloo does not support alltoall": gloo's
    all_to_all_single of the flattened, concatenated inputs with the pieces' sizes as splits.
"""
import json
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

WORLDS = (2, 3, 4)
GLOO_DTYPES = (torch.float16, torch.float32, torch.float64, torch.int8, torch.uint8, torch.int32, torch.int64)
INT_DTYPES = (torch.int8, torch.uint8, torch.int32, torch.int64)
NAMES = {torch.float16: "float16", torch.float32: "float32", torch.float64: "float64", torch.int8: "int8",
         torch.uint8: "uint8", torch.int32: "int32", torch.int64: "int64"}
SHAPES = ([0], [1], [5], [2, 3], [7])
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "golden")

HOW = {
    "all_gather": "dist.all_gather (gloo)",
    "all_gather_into_tensor": "gloo 1.13 has no _allgather_base: dist.all_gather (gloo) then torch.cat(dim=0)",
    "all_gather_coalesced": "dist.all_gather_coalesced (gloo); outputs[r][i] = list over source ranks of input i",
    "gather": "dist.gather (gloo); non-root ranks have outputs null",
    "scatter": "dist.scatter (gloo); non-root ranks have inputs null",
    "reduce_scatter": "gloo 1.13 has no reduce_scatter: dist.all_reduce (gloo) of every list input, rank r keeps input r's result",
    "reduce_scatter_tensor": "gloo 1.13 has no reduce_scatter: dist.all_reduce (gloo) of the flat input, rank r keeps chunk r",
    "all_to_all": "gloo 1.13 has no alltoall: dist.all_to_all_single (gloo) of the concatenated flattened inputs, splits = pieces' numel",
    "all_to_all_single": "dist.all_to_all_single (gloo) along dim 0 with uneven input/output splits (rows)",
    "all_reduce_sparse": "dist.all_reduce (gloo) of a sparse COO tensor, SUM; inputs are uncoalesced (duplicates); output is coalesced",
    "broadcast": "dist.broadcast (gloo)",
    "all_reduce": "dist.all_reduce (gloo); AVG (rejected by gloo) = gloo SUM then divided by world size in the dtype (integers truncate)",
}


def gen(dtype, shape, seed, kind="sum"):
    g = torch.Generator().manual_seed(seed)
    n = 1
    for d in shape:
        n *= d
    if dtype.is_floating_point:
        if kind == "product":
            choices = torch.tensor([-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0], dtype=torch.float64)
            vals = choices[torch.randint(0, len(choices), (n,), generator=g)]
        else:
            vals = torch.randint(-64, 65, (n,), generator=g).to(torch.float64) / 8
        return vals.to(dtype).reshape(shape)
    info = torch.iinfo(dtype)
    lo, hi = info.min, info.max
    if dtype == torch.int64:
        lo, hi = -(1 << 40), (1 << 40)  # short in JSON; PRODUCT still wraps
    if kind == "avg":  # no overflow in the sum, so AVG does not depend on how a sum wraps
        lo, hi = lo // 4, hi // 4
    return torch.randint(lo, hi, (n,), generator=g, dtype=torch.int64).to(dtype).reshape(shape)


def enc(t):
    if t is None:
        return None
    t = t.contiguous()
    data = t.to(torch.float64).flatten().tolist() if t.dtype.is_floating_point else t.flatten().tolist()
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data": data}


def seed_of(*parts):
    h = 1469598103934665603
    for p in parts:
        for ch in str(p):
            h = ((h ^ ord(ch)) * 1099511628211) & ((1 << 61) - 1)
    return h


def cases(world):
    """Every case for one world size: dicts of parameters (inputs are generated from them)."""
    out = []
    i = 0
    for op in ("all_gather", "all_gather_into_tensor", "gather", "scatter", "broadcast", "all_to_all", "all_to_all_single"):
        for dt in GLOO_DTYPES:
            shape = SHAPES[i % len(SHAPES)]
            if shape == [0] and op != "broadcast":
                shape = [3]  # gloo 1.13's allgather/gather/scatter/alltoall die with SIGFPE on empty tensors
            out.append({"op": op, "dtype": dt, "shape": shape, "root": (i % world), "i": i})
            i += 1
    for dt in GLOO_DTYPES:
        if i % len(WORLDS) != WORLDS.index(world):
            i += 1
            continue
        out.append({"op": "all_gather_coalesced", "dtype": dt, "shapes": [[3], [0], [2, 2]] if i % 2 else [[1], [2]],
                    "i": i})
        i += 1
    for op in ("all_reduce", "reduce_scatter", "reduce_scatter_tensor"):
        for dt in GLOO_DTYPES:
            rops = ["SUM", "PRODUCT", "MIN", "MAX", "AVG"] + (["BAND", "BOR", "BXOR"] if dt in INT_DTYPES else [])
            for rop in rops:
                shape = SHAPES[i % len(SHAPES)]
                # each (dtype, op) at one world size, in turn, to keep the files small
                if i % len(WORLDS) == WORLDS.index(world):
                    out.append({"op": op, "dtype": dt, "shape": shape, "reduce_op": rop, "i": i})
                i += 1
    for dt in (torch.float32, torch.float64, torch.int64):
        for dense in ([6], [3, 4], [4, 2]):
            out.append({"op": "all_reduce_sparse", "dtype": dt, "dense_shape": dense, "i": i})
            i += 1
    return out


def sparse_input(case, world, rank):
    g = torch.Generator().manual_seed(seed_of("sparse", world, case["i"], rank))
    dense = case["dense_shape"]
    sparse_dims = 1 if case["i"] % 3 == 2 else len(dense)  # [4, 2] with 1 sparse dim: hybrid (values [nnz, 2])
    nnz = int(torch.randint(0, 6, (1,), generator=g))
    idx = torch.stack([torch.randint(0, dense[d], (nnz,), generator=g) for d in range(sparse_dims)]) \
        if nnz else torch.zeros((sparse_dims, 0), dtype=torch.int64)
    vshape = [nnz] + dense[sparse_dims:]
    vals = gen(case["dtype"], vshape, seed_of("sparsev", world, case["i"], rank))
    return torch.sparse_coo_tensor(idx, vals, dense)


def enc_sparse(s):
    return {"indices": s._indices().tolist(), "indices_shape": list(s._indices().shape),
            "values": enc(s._values()), "dense_shape": list(s.shape), "coalesced": s.is_coalesced()}


def rop_of(name):
    return getattr(dist.ReduceOp, name)


def reduce_all(t, rop, world):
    """all_reduce through gloo; AVG as SUM / world (gloo has no AVG)."""
    if rop == "AVG":
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        if t.dtype.is_floating_point:
            t.div_(world)
        else:
            t.copy_(torch.div(t, world, rounding_mode="trunc"))
    else:
        dist.all_reduce(t, op=rop_of(rop))
    return t


def run_case(case, world, rank):
    op, i = case["op"], case["i"]
    dt = case.get("dtype")
    res = {"world_size": world}
    if op == "all_reduce_sparse":
        inp = sparse_input(case, world, rank)
        x = inp.clone()
        dist.all_reduce(x)
        res.update(input=enc_sparse(inp), output=enc_sparse(x))
        return res
    if op == "all_gather_coalesced":
        inps = [gen(dt, s, seed_of(op, world, i, rank, k)) for k, s in enumerate(case["shapes"])]
        outs = [[torch.empty(s, dtype=dt) for s in case["shapes"]] for _ in range(world)]
        dist.all_gather_coalesced(outs, inps)
        # our layout: outputs[i][src]
        res.update(input=[enc(t) for t in inps], output=[[enc(outs[src][k]) for src in range(world)]
                                                          for k in range(len(inps))])
        return res
    shape = case["shape"]
    kind = {"PRODUCT": "product", "AVG": "avg"}.get(case.get("reduce_op"), "sum")
    x = gen(dt, shape, seed_of(op, world, i, rank), kind)
    res["dtype"] = NAMES[dt]
    if op == "all_gather":
        outs = [torch.empty(shape, dtype=dt) for _ in range(world)]
        dist.all_gather(outs, x)
        res.update(input=enc(x), output=[enc(o) for o in outs])
    elif op == "all_gather_into_tensor":
        outs = [torch.empty(shape, dtype=dt) for _ in range(world)]
        dist.all_gather(outs, x)
        res.update(input=enc(x), output=enc(torch.cat(outs, 0)))
    elif op == "gather":
        root = case["root"]
        outs = [torch.empty(shape, dtype=dt) for _ in range(world)] if rank == root else None
        dist.gather(x, outs, dst=root)
        res.update(root=root, input=enc(x), output=[enc(o) for o in outs] if outs is not None else None)
    elif op == "scatter":
        root = case["root"]
        ins = [gen(dt, shape, seed_of(op, world, i, rank, k)) for k in range(world)] if rank == root else None
        out = torch.empty(shape, dtype=dt)
        dist.scatter(out, ins, src=root)
        res.update(root=root, input=[enc(t) for t in ins] if ins is not None else None, output=enc(out))
    elif op == "broadcast":
        root = case["root"]
        y = x.clone()
        dist.broadcast(y, src=root)
        res.update(root=root, input=enc(x), output=enc(y))
    elif op == "all_to_all":
        # piece sizes: rank r sends (r + p + i) % 3 + 0..  elements to p; shapes 1-D
        def n(src, dst):
            return (src * 2 + dst + i) % 4
        ins = [gen(dt, [n(rank, p)], seed_of(op, world, i, rank, p)) for p in range(world)]
        outs = [torch.empty([n(p, rank)], dtype=dt) for p in range(world)]
        flat_out = torch.empty([sum(n(p, rank) for p in range(world))], dtype=dt)
        dist.all_to_all_single(flat_out, torch.cat(ins), output_split_sizes=[n(p, rank) for p in range(world)],
                               input_split_sizes=[n(rank, p) for p in range(world)])
        outs = list(torch.split(flat_out, [n(p, rank) for p in range(world)]))
        res.update(input=[enc(t) for t in ins], output=[enc(o) for o in outs])
    elif op == "all_to_all_single":
        cols = 3 if i % 2 else 1
        def rows(src, dst):
            return (src + 2 * dst + i) % 3
        in_splits = [rows(rank, p) for p in range(world)]
        out_splits = [rows(p, rank) for p in range(world)]
        inp = gen(dt, [sum(in_splits), cols], seed_of(op, world, i, rank))
        out = torch.empty([sum(out_splits), cols], dtype=dt)
        dist.all_to_all_single(out, inp, output_split_sizes=out_splits, input_split_sizes=in_splits)
        res.update(input=enc(inp), output=enc(out), input_splits=in_splits, output_splits=out_splits)
    elif op == "all_reduce":
        rop = case["reduce_op"]
        y = reduce_all(x.clone(), rop, world)
        res.update(reduce_op=rop, input=enc(x), output=enc(y))
    elif op == "reduce_scatter":
        rop = case["reduce_op"]
        ins = [gen(dt, shape, seed_of(op, world, i, rank, k), kind) for k in range(world)]
        red = [reduce_all(t.clone(), rop, world) for t in ins]
        res.update(reduce_op=rop, input=[enc(t) for t in ins], output=enc(red[rank]))
    elif op == "reduce_scatter_tensor":
        rop = case["reduce_op"]
        flat = gen(dt, [world * shape[0]] + shape[1:], seed_of(op, world, i, rank), kind)
        red = reduce_all(flat.clone(), rop, world)
        res.update(reduce_op=rop, input=enc(flat), output=enc(red.chunk(world)[rank] if shape[0] else red))
    else:
        raise ValueError(op)
    return res


def worker(rank, world, port, outdir):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    results = []
    for c in cases(world):
        if os.environ.get("GOLDEN_DEBUG"):
            print(rank, c, flush=True)
        results.append(run_case(c, world, rank))
    finish_rank(outdir, world, rank, results)


def finish_rank(outdir, world, rank, results):
    """Leaves the group and writes this rank's results where the parent reads them."""
    dist.barrier()
    dist.destroy_process_group()
    with open(os.path.join(outdir, f"w{world}_r{rank}.json"), "w") as f:
        json.dump(results, f)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_world(worker, world, tmp):
    """Spawns `world` ranks of `worker(rank, world, port, tmp)` and reads back each rank's results (`finish_rank`)."""
    mp.spawn(worker, args=(world, free_port(), tmp), nprocs=world)
    per_rank = []
    for r in range(world):
        with open(os.path.join(tmp, f"w{world}_r{r}.json")) as f:
            per_rank.append(json.load(f))
    return per_rank


def main():
    by_op = {}
    with tempfile.TemporaryDirectory() as tmp:
        for world in WORLDS:
            per_rank = run_world(worker, world, tmp)
            for k, case in enumerate(cases(world)):
                rs = [per_rank[r][k] for r in range(world)]
                merged = {"world_size": world}
                for key in ("dtype", "root", "reduce_op"):
                    if key in rs[0]:
                        merged[key] = rs[0][key]
                if "input_splits" in rs[0]:
                    merged["input_splits"] = [x["input_splits"] for x in rs]
                    merged["output_splits"] = [x["output_splits"] for x in rs]
                if case["op"] == "all_reduce_sparse":
                    merged["dtype"] = NAMES[case["dtype"]]
                if case["op"] == "all_gather_coalesced":
                    merged["dtype"] = NAMES[case["dtype"]]
                merged["inputs"] = [x["input"] for x in rs]
                merged["outputs"] = [x["output"] for x in rs]
                by_op.setdefault(case["op"], []).append(merged)
    os.makedirs(OUT_DIR, exist_ok=True)
    for op, cs in sorted(by_op.items()):
        doc = {"op": op, "backend": "gloo", "torch_version": torch.__version__,
               "generator": "reactive-transport/src/test/scripts/make_golden_fixtures.py",
               "how": HOW[op], "cases": cs}
        path = os.path.join(OUT_DIR, op + ".json")
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
            f.write("\n")
        print(f"{os.path.relpath(path)}: {len(cs)} cases, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    sys.exit(main())
