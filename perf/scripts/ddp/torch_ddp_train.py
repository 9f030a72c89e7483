#!/usr/bin/python3
"""PyTorch mirror of samples-djl's TransformerEncoder, trained with DistributedDataParallel over gloo.

The model is the same pre-LayerNorm encoder classifier, from torch.nn modules, with the same
structure and parameter count (both the module's count and the formula are printed): token
nn.Embedding plus a learned positional table, --layers x { x + Attn(LN(x)); x + FFN(LN(x)) } with
attention written out (q, k, v, o nn.Linear with bias, softmax(Q K^T / sqrt(d_head)) V, no dropout,
no mask), FFN nn.Linear -> nn.GELU() (erf, as DJL's Activation.gelu, libtorch's default) -> nn.Linear,
a final nn.LayerNorm, the mean over the sequence and an nn.Linear head. Initial weights follow
DJL's default (Xavier uniform, factor avg, magnitude 6 = xavier_uniform_ with gain sqrt(2); biases
and LayerNorm shifts zero, LayerNorm scales one); their values differ, the distribution does not.

The data are SyntheticTokens' rule, bit for bit (SplitMix64; --print-sample shows a sample to check
against the Java test): global step s, rank r of world W takes samples
s*W*B + r*B ... s*W*B + r*B + B - 1, so --world 1 trains on exactly what one DJL process trains on.
Batches are generated before the clock starts.

    /usr/bin/python3 perf/scripts/ddp/torch_ddp_train.py --world 1 --preset base --batch 16
    /usr/bin/python3 perf/scripts/ddp/torch_ddp_train.py --world 2 --preset base --batch 16

--world 1 is plain single-process training (no process group, no DDP). A step is zero_grad,
forward, loss, backward, SGD step; each rank uses 1 intra-op and 1 inter-op thread.

With --world > 1, after the timed steps every rank runs --nosync-steps more inside DDP's no_sync()
(backward without the gradient all-reduce). "exposed comm" is median(backward with DDP's
all-reduce) - median(backward under no_sync), on rank 0: the all-reduce time that backward's
compute did not hide (DDP's backward returns only once every bucket's all-reduce has finished).
"""
import argparse
import math
import os
import socket
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

PRESETS = {  # vocab, seq, d_model, heads, ffn, layers, classes: EncoderConfig.BASE / TINY
    "base": (8192, 64, 512, 8, 2048, 3, 10),
    "tiny": (64, 16, 16, 2, 32, 2, 4),
}
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SAMPLE_STRIDE = 0xD1B54A32D192ED03


def splitmix64(state):
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def sample(seed, index, vocab, seq, classes):
    """SyntheticTokens.sample: the tokens and label of one global sample index."""
    state = (seed ^ (index * SAMPLE_STRIDE)) & MASK
    state, v = splitmix64(state)
    hidden = v % classes
    per_bucket = vocab // classes
    tokens, counts = [], [0] * classes
    for _ in range(seq):
        state, v = splitmix64(state)
        if v % 2 == 0:
            state, v = splitmix64(state)
            token = hidden + classes * (v % per_bucket)
        else:
            state, v = splitmix64(state)
            token = v % vocab
        tokens.append(token)
        counts[token % classes] += 1
    label = max(range(classes), key=lambda c: (counts[c], -c))
    return tokens, label


def batch(seed, indices, vocab, seq, classes):
    rows = [sample(seed, i, vocab, seq, classes) for i in indices]
    return (torch.tensor([t for t, _ in rows], dtype=torch.int64),
            torch.tensor([l for _, l in rows], dtype=torch.int64))


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.query, self.key, self.value, self.out = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x):
        b, s, d = x.shape
        split = lambda t: t.reshape(b, s, self.heads, self.head_dim).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q.matmul(k.transpose(2, 3)) / math.sqrt(self.head_dim)
        context = scores.softmax(-1).matmul(v).transpose(1, 2).reshape(b, s, d)
        return self.out(context)


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.attention_norm = nn.LayerNorm(d, eps=1e-5)
        self.attention = SelfAttention(d, heads)
        self.feed_forward_norm = nn.LayerNorm(d, eps=1e-5)
        self.expand, self.gelu, self.contract = nn.Linear(d, ffn), nn.GELU(), nn.Linear(ffn, d)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.contract(self.gelu(self.expand(self.feed_forward_norm(x))))


class TransformerEncoder(nn.Module):
    def __init__(self, vocab, seq, d, heads, ffn, layers, classes, sparse=False):
        super().__init__()
        self.token = nn.Embedding(vocab, d, sparse=sparse)  # sparse: DDP all-reduces the rows the batch touched
        self.position = nn.Embedding(seq, d)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, ffn) for _ in range(layers))
        self.final_norm = nn.LayerNorm(d, eps=1e-5)
        self.head = nn.Linear(d, classes)
        for name, p in self.named_parameters():  # DJL's defaults (see the module docstring)
            if p.dim() == 2:
                nn.init.xavier_uniform_(p, gain=math.sqrt(2.0))
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, ids):
        x = self.token(ids) + self.position.weight
        for layer in self.layers:
            x = layer(x)
        return self.head(self.final_norm(x).mean(1))


def formula(vocab, seq, d, heads, ffn, layers, classes):
    """EncoderConfig.parameterCount."""
    per_layer = 2 * 2 * d + 4 * (d * d + d) + d * ffn + ffn + ffn * d + d
    return vocab * d + seq * d + layers * per_layer + 2 * d + d * classes + classes


def blas_in_use():
    """The BLAS library this process mapped (torch from Debian links libblas.so.3, which is
    whatever the alternatives or LD_LIBRARY_PATH select: the reference BLAS is ~10x slower)."""
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
        return ",".join(sorted(libs)) or "none mapped"
    except OSError:
        return "unknown"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spread(xs):
    return statistics.median(xs), min(xs), max(xs)


def run(rank, a, port):
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    dims = PRESETS[a.preset]
    vocab, seq, _, _, _, _, classes = dims
    W, B = a.world, a.batch
    if W > 1:
        if port is not None:  # spawned here; with --env the launcher (or the namespaces' harness) set them
            os.environ["MASTER_ADDR"] = "127.0.0.1"
            os.environ["MASTER_PORT"] = str(port)
        dist.init_process_group("gloo", rank=rank, world_size=W)
    torch.manual_seed(a.seed)  # the same initial weights on every rank (DDP also broadcasts rank 0's)
    model = TransformerEncoder(*dims, sparse=a.sparse_embedding)
    params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        print(f"# torch {torch.__version__} world={W} backend={'gloo DDP' if W > 1 else 'none (single process)'}"
              f" threads intra={torch.get_num_threads()} interop={torch.get_num_interop_threads()}", flush=True)
        print(f"# blas {blas_in_use()}", flush=True)
        print(f"params={params} (formula {formula(*dims)})", flush=True)
    net = DDP(model) if W > 1 else model
    opt = torch.optim.SGD(net.parameters(), lr=a.lr)
    total = a.steps + (a.nosync_steps if W > 1 else 0)
    data = [batch(a.seed, range(s * W * B + rank * B, s * W * B + rank * B + B), vocab, seq, classes)
            for s in range(total)]
    step_ms, bwd_ms, nosync_bwd_ms = [], [], []
    timed_start, timed_wall = None, None
    if W > 1:
        dist.barrier()  # once, before the first step: no barrier inside the timed loop (DDP needs none)
    for s in range(total):
        x, y = data[s]
        if s == a.warmup:
            timed_start = time.perf_counter()
        if s == a.steps and W > 1:
            timed_wall = time.perf_counter() - timed_start
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        loss = F.cross_entropy(net(x), y)
        t1 = time.perf_counter()
        if s < a.steps:
            loss.backward()
            t2 = time.perf_counter()
            opt.step()
            t3 = time.perf_counter()
            step_ms.append((t3 - t0) * 1e3)
            bwd_ms.append((t2 - t1) * 1e3)
            if rank == 0 and (s % 5 == 0 or s == a.steps - 1):
                print(f"step {s} loss {loss.item():.4f} {step_ms[-1]:.1f} ms", flush=True)
        else:
            with net.no_sync():
                loss.backward()
            nosync_bwd_ms.append((time.perf_counter() - t1) * 1e3)
    if timed_wall is None:
        timed_wall = time.perf_counter() - timed_start
    if W > 1:
        dist.destroy_process_group()
    if rank == 0:
        med, lo, hi = spread(step_ms[a.warmup:])
        print(f"preset={a.preset} world={W} batch/rank={B} seq={seq} steps={a.steps} warmup={a.warmup} "
              f"ms/step median={med:.1f} min={lo:.1f} max={hi:.1f} samples/s={W * B * 1000 / med:.1f}", flush=True)
        mean = timed_wall * 1e3 / (a.steps - a.warmup)
        bmed, _, _ = spread(bwd_ms[a.warmup:])
        exposed = "null"
        if W > 1:
            nmed, _, _ = spread(nosync_bwd_ms[1:] if len(nosync_bwd_ms) > 1 else nosync_bwd_ms)
            exposed = f"{bmed - nmed:.3f}"
            print(f"backward median={bmed:.1f} ms (with all-reduce), {nmed:.1f} ms under no_sync; "
                  f"exposed comm={bmed - nmed:.1f} ms/step", flush=True)
        else:
            print(f"backward median={bmed:.1f} ms", flush=True)
        print(f'{{"framework": "pytorch-ddp", "torch": "{torch.__version__}", "world": {W}, "batch_per_rank": {B}, '
              f'"params": {params}, "ms_per_step": {mean:.3f}, "ms_per_step_median": {med:.3f}, '
              f'"exposed_comm_ms": {exposed}}}', flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--world", type=int, default=1)
    p.add_argument("--env", action="store_true",
                   help="one rank of a launched job: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from the environment")
    p.add_argument("--preset", default="base", choices=sorted(PRESETS))
    p.add_argument("--batch", type=int, default=16, help="samples per rank per step")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--nosync-steps", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--sparse-embedding", action="store_true",
                   help="nn.Embedding(sparse=True) for the token table: its gradient is sparse and DDP sends its rows")
    p.add_argument("--print-sample", type=int, nargs="*", metavar="INDEX",
                   help="print these samples of the preset's data (seed --seed) and exit")
    a = p.parse_args()
    if a.print_sample is not None:
        vocab, seq, _, _, _, _, classes = PRESETS[a.preset]
        for i in a.print_sample:
            tokens, label = sample(a.seed, i, vocab, seq, classes)
            print(f"sample {i}: [{', '.join(map(str, tokens))}] label {label}")
        return
    if a.warmup >= a.steps:
        p.error("--warmup must be below --steps")
    if a.env:
        a.world = int(os.environ["WORLD_SIZE"])
        run(int(os.environ["RANK"]), a, None)
    elif a.world == 1:
        run(0, a, None)
    else:
        mp.spawn(run, args=(a, free_port()), nprocs=a.world, join=True)


if __name__ == "__main__":
    main()
