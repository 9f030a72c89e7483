#!/usr/bin/env python3
"""Parses nccl-tests output, and bin/collectives-perf's (the same layout), the way users' scripts do:
lines starting with '#' are skipped, the others split on whitespace: the size in bytes is column 0,
the out-of-place busbw column 7, the in-place busbw column 11; the average comes from the
"# Avg bus bandwidth" footer line. Prints one JSON object per file:

  {"file": F, "columns": 13, "rows": [{"size": 8, "busbw_out_of_place": 0.0, "busbw_in_place": 0.0}, ...],
   "avg_busbw": 1.23}

("columns": the fields every row has; "avg_busbw": null when the footer is missing). Exit code 1 when
a file has no row.

  perf/scripts/parse_nccl_tests.py perf/src/test/resources/nccl-tests/*.txt
  bin/collectives-perf all_reduce --world 2 -b 8 -e 1M -f 4 | perf/scripts/parse_nccl_tests.py -
"""
import json
import sys


def parse(lines):
    rows, avg, widths = [], None, set()
    for line in lines:
        if line.startswith("# Avg bus bandwidth"):
            avg = float(line.split(":", 1)[1].split()[0])
            continue
        if line.startswith("#") or not line.strip():
            continue
        c = line.split()
        widths.add(len(c))
        rows.append({"size": int(c[0]), "busbw_out_of_place": float(c[7]), "busbw_in_place": float(c[11])})
    return {"columns": widths.pop() if len(widths) == 1 else sorted(widths), "rows": rows, "avg_busbw": avg}


def main(paths):
    ok = True
    for path in paths or ["-"]:
        with (sys.stdin if path == "-" else open(path)) as f:
            result = {"file": path, **parse(f)}
        ok = ok and bool(result["rows"])
        print(json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
