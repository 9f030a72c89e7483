#!/usr/bin/env python3
"""Table of loopback_tcp_cpu.sh's runs: per framework and size, the median and (min-max) over the rounds
of time per all-reduce (median of each run), busbw, CPU per all-reduce (ranks summed) and CPU per GB of
payload; then ours/gloo and ours/MPI of the medians. busbw from the median time (2(n-1)/n x bytes / time, n = 2). Usage: loopback_tcp_cpu_summary.py OUT [TAG]"""
import glob, os, re, statistics, sys
out = sys.argv[1]; tag = sys.argv[2] if len(sys.argv) > 2 else "loopback"
data = {}  # (fw, bytes) -> list of (median_us, busbw, cpu_ms)
for f in sorted(glob.glob(os.path.join(out, glob.escape(tag) + "-r*-*.txt"))):
    fw = re.match(re.escape(tag) + r"-r\d+-(\w+)\.txt$", os.path.basename(f)).group(1)
    for line in open(f):
        p = line.split()
        if p and p[0] == "row":
            data.setdefault((fw, int(p[1])), []).append((float(p[3]), int(p[1]) / (float(p[3]) / 1e6) / 1e9, float(p[6])))
def size(b): return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b} B"
def fmt(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 0.1 else f"{v:.3g}"
def cell(vals):
    m = statistics.median(vals)
    return f"{fmt(m)} ({fmt(min(vals))}-{fmt(max(vals))})" if len(vals) > 1 else fmt(m)
fws = [fw for fw in ("ours", "gloo", "mpi") if any(k[0] == fw for k in data)]
sizes = sorted({k[1] for k in data})
print("| size | framework | rounds | time per all-reduce, us | busbw GB/s | CPU ms per all-reduce, ranks summed | CPU ms per GB of payload |")
print("| --- | --- | --- | --- | --- | --- | --- |")
med = {}
for b in sizes:
    for fw in fws:
        rows = data.get((fw, b))
        if not rows: continue
        t, bw, cpu = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
        perg = [c / (b / 1e9) for c in cpu]
        med[(fw, b)] = (statistics.median(t), statistics.median(bw), statistics.median(cpu))
        print(f"| {size(b)} | {fw} | {len(rows)} | {cell(t)} | {cell(bw)} | {cell(cpu)} | {cell(perg)} |")
print()
print("| size | CPU ours/gloo | CPU ours/MPI | busbw ours/gloo | busbw ours/MPI | time ours/gloo | time ours/MPI |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for b in sizes:
    o, g, m = med.get(("ours", b)), med.get(("gloo", b)), med.get(("mpi", b))
    r = lambda a, c, i: f"{a[i] / c[i]:.2f}" if a and c and c[i] else "-"
    print(f"| {size(b)} | {r(o, g, 2)} | {r(o, m, 2)} | {r(o, g, 1)} | {r(o, m, 1)} | {r(o, g, 0)} | {r(o, m, 0)} |")
