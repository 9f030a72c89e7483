#!/usr/bin/env python3
"""Golden fixtures for c10d's four object collectives, computed by PyTorch's gloo backend.

Run by hand (not by CI), from the repository root:

    /usr/bin/python3 reactive-transport/src/test/scripts/make_object_fixtures.py

(`bash ../shared/peers/setup.sh` installs PyTorch with gloo.) For world sizes 2, 3 and 4 it
spawns that many ranks with torch.multiprocessing on loopback (ephemeral port) and runs
dist.all_gather_object, dist.broadcast_object_list, dist.gather_object and
dist.scatter_object_list on JSON-shaped values, writing one file:
reactive-transport/src/test/resources/golden/objects.json. The inputs are a pure function of the
case (op, kind, world size, root, rank or list index), so the script is reproducible; the outputs
are what gloo produced, serialized with json.dumps on each rank after the call.

File layout:
    {"backend": "gloo", "torch_version": ..., "generator": <this script>, "how": {<op>: ...},
     "cases": [{"op": <op>, "name": <short case name>, "world_size": W,
                "root": R (null for all_gather_object), "inputs": [per rank], "outputs": [per rank]}]}
where, for rank r:
  * all_gather_object:     inputs[r] = the rank's object; outputs[r] = the list it received (length W)
  * broadcast_object_list: inputs[r] = the list rank r passed (root: the values; others: as many
                           nulls); outputs[r] = that list after the call
  * gather_object:         inputs[r] = the object; outputs[r] = the gathered list on the root, null elsewhere
  * scatter_object_list:   inputs[r] = the root's input list (length W) on the root, null elsewhere;
                           outputs[r] = the one object rank r received (output_list[0])

Values are JSON-shaped only, so the file says exactly what each rank held: dicts with string keys,
lists, str (non-ASCII, astral-plane emoji, control characters, empty), ints (negative, 0, 2^53+1,
2^63-1, -2^63, 2^64, 2^70: beyond a Java long, parse them as BigInteger), floats (0.1, -2.5, 1e300,
5e-324, 1.0, ...), booleans, null, {}, [], 5-level nesting and, in one case per op (world size 2),
a value of about 200 KB. No NaN/Infinity, no -0.0, no tuples. Ranks (and list elements) always hold
different values, so an ordering error shows. Each value kind runs at one world size (the kinds
rotate over 2, 3, 4 and over the roots); "empties" and "top_scalars" (top-level "", {}, [], null,
true, false, ints, floats, str) run at every world size, so each op sees every such value; the
"mixed" kind runs at every world size and, for the rooted ops, with every root. The script checks that json.loads(json.dumps(x)) equals x, types
included, for every input, and that gloo's outputs are what each op's definition says.
"""
import json
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_golden_fixtures import finish_rank, run_world  # noqa: E402  (the same spawn harness)

WORLDS = (2, 3, 4)
OPS = ("all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list")
KINDS = ("ascii_strings", "unicode", "ints", "floats", "bools_null", "nested5", "list_mixed", "dict_keys",
         "list_of_lists")
EVERY_WORLD = ("empties", "top_scalars")  # top-level values: run at 2, 3 and 4 so each op sees them all
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "golden", "objects.json")

HOW = {
    "all_gather_object": "dist.all_gather_object(output_list, obj) (gloo); outputs[r] = output_list after the call",
    "broadcast_object_list": "dist.broadcast_object_list(object_list, src=root) (gloo); non-root ranks pass "
                             "[None] * len; outputs[r] = object_list after the call",
    "gather_object": "dist.gather_object(obj, [None] * W on the root else None, dst=root) (gloo); "
                     "outputs[r] = the gathered list on the root, null on other ranks",
    "scatter_object_list": "dist.scatter_object_list(output_list=[None], input_list on the root else None, "
                           "src=root) (gloo); outputs[r] = output_list[0]",
}

UNICODE = ("h\u00e9llo w\u00f6rld \u00f1", "\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8 \u4e2d\u6587",
           "\U0001F600\U0001F389 \U0001F469\u200D\U0001F4BB \U0001F1EF\U0001F1F5",
           "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac \u2211 \u221e \u2014 \u201cquoted\u201d",
           "tab\t nl\n cr\r nul\u0000 quote\" backslash\\ slash/ del\u007f",
           "\U0001D11E astral \U00010348 e\u0301 (combining)", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u05e2\u05d1\u05e8\u05d9\u05ea",
           "\ufeffBOM and \u00a0nbsp \u2028 line sep")
EMPTIES = ("", {}, [], None, [[]], {"": ""}, [{}, [], ""], {"e": {}})
INTS = (0, -1, 1, -(2 ** 31), 2 ** 31 - 1, 2 ** 53 + 1, -(2 ** 53 + 1), 2 ** 63 - 1, -(2 ** 63), 2 ** 64, 2 ** 70,
        -(2 ** 70), 123456789, -42)
FLOATS = (0.1, -2.5, 1e300, 5e-324, 1.0, -1e-300, 1.7976931348623157e308, 2.2250738585072014e-308, 0.5,
          3.141592653589793, -123456.789, 1e16, 2.0 ** 70, -0.1)
SCALARS = (7, True, None, "", 0.1, False, -3, 2 ** 70, "scalar", 5e-324, 1.0, "\U0001F600", -2.5, 0)


def value(kind, tag, j, c):
    """The value that rank (or list element) j holds in case c of this kind; tag names the case."""
    if kind == "mixed":
        return {"j": j, "tag": tag, "s": f"v{j}-\u00fc\U0001F389", "i": -(j + 1) * (2 ** 53 + 1), "big": 2 ** 70 + j,
                "f": 0.1 * (j + 1), "half": j + 0.5, "b": j % 2 == 0, "n": None,
                "l": [j, str(j), -2.5, [], {}, None, True], "d": {"k": [j] * j, "": "empty key"}}
    if kind == "ascii_strings":
        return f"rank-or-index {j} of {tag}: " + "abc" * (j + 1)
    if kind == "unicode":
        return [UNICODE[(j + c) % len(UNICODE)] + f" #{j}", UNICODE[(j + c + 3) % len(UNICODE)], ""]
    if kind == "empties":
        return EMPTIES[(j + c) % len(EMPTIES)]
    if kind == "ints":
        return [INTS[(3 * j + k + c) % len(INTS)] for k in range(5)]
    if kind == "floats":
        return {"vals": [FLOATS[(3 * j + k + c) % len(FLOATS)] for k in range(5)], "j": float(j)}
    if kind == "bools_null":
        return {"flag": j % 2 == 0, "other": j % 2 == 1, "none": None,
                "list": [[True, None, False, None][(j + k) % 4] for k in range(3 + j)]}
    if kind == "top_scalars":
        return SCALARS[(j + c) % len(SCALARS)]
    if kind == "nested5":  # both branches are exactly 5 containers deep
        return {"a": [{"b": [{"c": j, "leaf": f"deep-{j}", "f": j + 0.25}]}], "l": [[[[j, None]]]]}
    if kind == "list_mixed":
        return [j, -j - 1, f"s{j}", j / 4, j % 2 == 0, None, [j], {"k": j}, [], {}, "", 2 ** 53 + 1 + j]
    if kind == "dict_keys":
        return {"": j, " ": "space", "\u043a\u043b\u044e\u0447": j, "\U0001F511": [j], "a.b": None, "0": "zero",
                "1": 1, "quote\"key": "q", "nested": {"x": {"y": j, "z": {}}}, f"k{j}": j}
    if kind == "list_of_lists":
        return [[k * (j + 1) for k in range(i)] for i in range(j + 2)]
    if kind == "large_list":  # about 220 KB of JSON
        return [f"r{j}-{i:05d}" for i in range(20000)]
    if kind == "large_dict":  # about 200 KB of JSON
        return {f"key-{i:04d}": f"rank{j}-value-{i:04d}-pad" for i in range(5000)}
    raise ValueError(kind)


def cases():
    """Every case, in the order every rank runs it: dicts of op, name, kind, world, root, list length."""
    out = []
    for op in OPS:
        rooted = op != "all_gather_object"
        for w in WORLDS:  # "mixed" at every world size and every root
            for root in (range(w) if rooted else (None,)):
                out.append({"op": op, "kind": "mixed", "world": w, "root": root, "len": 3})
        for kind in EVERY_WORLD:  # the rotation continues over the world sizes (base), so every value shows
            for i, w in enumerate(WORLDS):
                out.append({"op": op, "kind": kind, "world": w, "root": (i + 1) % w if rooted else None, "len": w,
                            "base": sum(WORLDS[:i])})
        for k, kind in enumerate(KINDS):
            w = WORLDS[k % len(WORLDS)]
            root = (k // len(WORLDS) + 1) % w if rooted else None
            out.append({"op": op, "kind": kind, "world": w, "root": root, "len": 1 + k % 3})
        large = {"all_gather_object": "large_list", "broadcast_object_list": "large_dict",
                 "gather_object": "large_dict", "scatter_object_list": "large_list"}[op]
        out.append({"op": op, "kind": large, "world": 2, "root": 1 if rooted else None, "len": 1})
    for c, case in enumerate(out):
        case["c"] = c
        root = "" if case["root"] is None else f"_root{case['root']}"
        case["name"] = f"{case['kind']}_w{case['world']}{root}"
        case["tag"] = f"{case['op']}/{case['name']}"
    return out


def inputs_of(case, rank):
    """What rank passes in (before the call)."""
    kind, tag, w, root = case["kind"], case["tag"], case["world"], case["root"]
    c = case.get("base", case["c"])
    op = case["op"]
    if op in ("all_gather_object", "gather_object"):
        return value(kind, tag, rank, c)
    if op == "broadcast_object_list":
        return [value(kind, tag, k, c) for k in range(case["len"])] if rank == root else [None] * case["len"]
    if op == "scatter_object_list":
        return [value(kind, tag, k, c) for k in range(w)] if rank == root else None
    raise ValueError(op)


def run_case(case, rank):
    op, w, root = case["op"], case["world"], case["root"]
    inp = inputs_of(case, rank)
    inp_json = json.dumps(inp)  # before the call: broadcast_object_list fills the list in place
    if op == "all_gather_object":
        out = [None] * w
        dist.all_gather_object(out, inp)
    elif op == "broadcast_object_list":
        out = inp
        dist.broadcast_object_list(out, src=root)
    elif op == "gather_object":
        out = [None] * w if rank == root else None
        dist.gather_object(inp, out, dst=root)
    elif op == "scatter_object_list":
        box = [None]
        dist.scatter_object_list(box, inp, src=root)
        out = box[0]
    else:
        raise ValueError(op)
    return {"input": inp_json, "output": json.dumps(out)}


def worker(rank, world, port, outdir):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    results = []
    for case in cases():
        if case["world"] != world:
            continue
        if os.environ.get("GOLDEN_DEBUG"):
            print(rank, case["tag"], flush=True)
        results.append(run_case(case, rank))
    finish_rank(outdir, world, rank, results)


def strict_eq(a, b):
    """Equality that also tells 1, 1.0 and True apart (Python's == does not)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_eq(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return a == b


def check_json_exact(case):
    """Every input is exactly JSON-expressible: it survives json.dumps/json.loads, types included."""
    for r in range(case["world"]):
        x = inputs_of(case, r)
        if not strict_eq(json.loads(json.dumps(x)), x):
            raise AssertionError(f"{case['tag']} rank {r}: input does not survive a JSON round trip")


def expected(case, ins):
    """What the op's definition says each rank ends with, from the recorded inputs."""
    op, w, root = case["op"], case["world"], case["root"]
    if op == "all_gather_object":
        return [list(ins) for _ in range(w)]
    if op == "broadcast_object_list":
        return [ins[root] for _ in range(w)]
    if op == "gather_object":
        return [list(ins) if r == root else None for r in range(w)]
    if op == "scatter_object_list":
        return [ins[root][r] for r in range(w)]
    raise ValueError(op)


def main():
    start = time.monotonic()
    all_cases = cases()
    for case in all_cases:
        check_json_exact(case)
    per_case = {}
    with tempfile.TemporaryDirectory() as tmp:
        for world in WORLDS:
            per_rank = run_world(worker, world, tmp)
            mine = [c for c in all_cases if c["world"] == world]
            for k, case in enumerate(mine):
                per_case[case["c"]] = [per_rank[r][k] for r in range(world)]
    docs = []
    for case in all_cases:
        rs = per_case[case["c"]]
        ins = [json.loads(x["input"]) for x in rs]
        outs = [json.loads(x["output"]) for x in rs]
        if not strict_eq(outs, expected(case, ins)):
            raise AssertionError(f"{case['tag']}: gloo's outputs differ from the op's definition")
        docs.append({"op": case["op"], "name": case["name"], "world_size": case["world"], "root": case["root"],
                     "inputs": ins, "outputs": outs})
    doc = {"backend": "gloo", "torch_version": torch.__version__,
           "generator": "reactive-transport/src/test/scripts/make_object_fixtures.py", "how": HOW, "cases": docs}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    counts = {op: sum(1 for c in docs if c["op"] == op) for op in OPS}
    print(f"{os.path.relpath(OUT)}: {len(docs)} cases {counts}, {os.path.getsize(OUT)} bytes, "
          f"{time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
