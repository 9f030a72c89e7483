#!/usr/bin/env python3
"""Summarises a perf/scripts/peer_compare.sh run directory: medians over rounds of time_us and busbw
per (implementation, op, bytes), ratios of medians against PyTorch gloo, and iperf3's loopback rate."""
import glob, json, os, re, statistics, sys

out = sys.argv[1]
sizes = [int(s) for s in (sys.argv[2:] or ["4", "1048576", "67108864"])]
rows = {}  # (impl, op, bytes) -> [(time_us, busbw)]
for f in sorted(glob.glob(os.path.join(out, "*-*-*.txt"))):
    impl, op, _ = os.path.basename(f)[:-4].rsplit("-", 2)
    for line in open(f):
        p = line.split()
        if not line.startswith("#") and len(p) >= 13 and p[0].isdigit():
            # nccl-tests' layout (collectives-perf's): size count type redop root, then out-of-place time algbw busbw
            rows.setdefault((impl, op, int(p[0])), []).append((float(p[5]), float(p[7])))
        elif len(p) >= 6 and p[1].isdigit():  # the peers' scripts (and collectives-perf before): op bytes count time_us algbw busbw
            rows.setdefault((impl, op, int(p[1])), []).append((float(p[3]), float(p[5])))
iperf = []
for f in sorted(glob.glob(os.path.join(out, "iperf3-*.json"))):
    try:
        iperf.append(json.load(open(f))["end"]["sum_received"]["bits_per_second"] / 8e9)
    except Exception:
        pass

def med(impl, op, b, k):
    v = rows.get((impl, op, b))
    return statistics.median(x[k] for x in v) if v else None

def near(op, impl, b):
    """The size row an implementation printed closest to b (split ops round counts to the world)."""
    cands = [s for (i, o, s) in rows if i == impl and o == op]
    return min(cands, key=lambda s: abs(s - b)) if cands else None

names = {"rc": "reactive-collectives", "rc_unix": "reactive-collectives, Unix sockets", "gloo": "PyTorch gloo",
         "mpi_tcp": "Open MPI TCP", "mpi_shm": "Open MPI shm"}
print(open(os.path.join(out, "machine.txt")).read().strip().replace("\n", "  \n"))
print()
n_rounds = max((len(v) for v in rows.values()), default=0)
print(f"Medians of {n_rounds} rounds (time_us, busbw GB/s), the rounds' range of time_us beside them; ratios are "
      "of medians, against gloo and against Open MPI shm.")
print()
print("| op | bytes | impl | time_us | range | busbw | time vs gloo | busbw vs gloo | time vs MPI shm | busbw vs MPI shm |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")

def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else ""

for op in sorted({o for (_, o, _) in rows}):
    for b in sizes:
        g_b, m_b = near(op, "gloo", b), near(op, "mpi_shm", b)
        g_t, g_bw = med("gloo", op, g_b, 0), med("gloo", op, g_b, 1)
        m_t, m_bw = med("mpi_shm", op, m_b, 0), med("mpi_shm", op, m_b, 1)
        for impl in ["rc", "rc_unix", "gloo", "mpi_tcp", "mpi_shm"]:
            s = near(op, impl, b)
            if s is None:
                continue
            t, bw = med(impl, op, s, 0), med(impl, op, s, 1)
            ts = [x[0] for x in rows[(impl, op, s)]]
            spread = f"{min(ts):.1f}-{max(ts):.1f}"
            vs_g = (ratio(t, g_t), ratio(bw, g_bw)) if impl != "gloo" else ("", "")
            vs_m = (ratio(t, m_t), ratio(bw, m_bw)) if impl != "mpi_shm" else ("", "")
            print(f"| {op} | {s} | {names[impl]} | {t:.1f} | {spread} | {bw:.3f} | {vs_g[0]} | {vs_g[1]} | {vs_m[0]} | {vs_m[1]} |")
if iperf:
    print()
    print(f"iperf3 one stream on loopback: median {statistics.median(iperf):.2f} GB/s over {len(iperf)} runs "
          f"({', '.join(f'{x:.2f}' for x in iperf)}).")
    s = near("all_reduce", "rc", 67108864)
    if s:
        print(f"64 MiB all_reduce busbw / iperf3: {med('rc', 'all_reduce', s, 1) / statistics.median(iperf):.0%}")
