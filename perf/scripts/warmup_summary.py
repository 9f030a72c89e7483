#!/usr/bin/env python3
"""Summary of perf/scripts/warmup_compare.sh's raw files (<label>-r<round>.txt): per run, the first
op's start (s from process start), the time to 90% of the steady state (the end of the first op from
which the median of it and the next two reach 0.9 x the steady busbw, the median of the last third of
the ops), the busbw of the first 10 s from process start (bus bytes completed by then / 10 s), the
steady busbw and the CPU ms per all-reduce summed over the ranks; then per label the medians."""
import glob, os, re, statistics, sys

d = sys.argv[1] if len(sys.argv) > 1 else "perf/out/warmup"
rows = {}
for f in sorted(glob.glob(os.path.join(d, "*-r*.txt"))):
    label = re.sub(r"-r\d+\.txt$", "", os.path.basename(f))
    ops, first, cpu, jit = [], None, None, None
    for line in open(f):
        p = line.split()
        if p[0] == "op": ops.append((float(p[2]), float(p[3]), float(p[4])))
        elif p[0] == "first_op_s": first = float(p[1])
        elif p[0] == "cpu_ms_per_op":
            cpu = float(p[1])
            if "jit_ms_per_op" in p: jit = float(p[p.index("jit_ms_per_op") + 1])
    if len(ops) < 6: print(f"{f}: only {len(ops)} ops"); continue
    steady = statistics.median([b for _, _, b in ops[-max(3, len(ops) // 3):]])
    t90 = next((ops[i][0] for i in range(len(ops) - 2)
                if statistics.median([b for _, _, b in ops[i:i + 3]]) >= 0.9 * steady), float("nan"))
    # bus bytes done by 10 s: whole ops that ended by then, plus the part of the op running at 10 s
    done = 0.0
    for end, ms, b in ops:
        start = end - ms / 1e3
        if end <= 10: done += b * ms / 1e3
        elif start < 10: done += b * ms / 1e3 * (10 - start) / (ms / 1e3)
    rows.setdefault(label, []).append((first, t90, done / 10, steady, cpu, jit))
    print(f"{os.path.basename(f):22} first_op {first:6.2f} s  t90 {t90:6.2f} s  first10s {done / 10:.4f}  steady {steady:.4f} GB/s  cpu/op {cpu} ms (jit {jit})")
print("\n| label | runs | first op (s) | to 90% of steady (s) | busbw first 10 s (GB/s) | steady busbw (GB/s) | CPU ms per all-reduce, ranks summed | of which JIT |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for label, rs in rows.items():
    def col(i, fmt):
        v = [r[i] for r in rs if r[i] is not None]
        return f"{statistics.median(v):{fmt}} ({min(v):{fmt}}-{max(v):{fmt}})" if v else "-"
    print(f"| {label} | {len(rs)} | {col(0, '.2f')} | {col(1, '.2f')} | {col(2, '.4f')} | {col(3, '.4f')} | {col(4, '.2f' if rs[0][4] is not None and rs[0][4] < 20 else '.0f')} | {col(5, '.2f')} |")
