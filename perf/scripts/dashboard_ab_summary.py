#!/usr/bin/env python3
"""Medians and spread of perf/scripts/dashboard_ab.sh's rows, and each label's ratio to 'off' and to 'base'."""
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "perf/out/dashboard_ab.txt"):
    p = line.split()
    if len(p) != 6 or line.startswith("#"):
        continue
    label, transport, _round, size, time_us, busbw = p
    rows[(transport, int(size), label)].append(float(time_us))

print("| transport | bytes | label | time us (median) | min-max | n | vs off | vs base |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for (transport, size, label) in sorted(rows, key=lambda k: (k[0], k[1], ["base", "off", "on", "polled"].index(k[2]) if k[2] in ["base", "off", "on", "polled"] else 9)):
    v = rows[(transport, size, label)]
    med = statistics.median(v)
    def ratio(other):
        o = rows.get((transport, size, other))
        return "%.2fx" % (med / statistics.median(o)) if o else "-"
    print("| %s | %d | %s | %.1f | %.1f-%.1f | %d | %s | %s |" % (transport, size, label, med, min(v), max(v), len(v), ratio("off"), ratio("base")))
