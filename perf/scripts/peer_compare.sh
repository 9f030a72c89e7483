#!/usr/bin/env bash
# Collectives side by side with the peers (issues 4 and 5): for each op, ROUNDS rounds that run, one
# after the other, bin/collectives-perf, PyTorch gloo (../shared/peers/torch_gloo_bench.py) and, for
# all_reduce, Open MPI over TCP and over shared memory, plus one iperf3 loopback stream per round.
# Every run sweeps 4 B .. 64 MiB (x4) on WORLD local ranks. The raw tables go to OUT (default
# perf/out/peer-compare-<time>), perf/scripts/peer_compare_summary.py prints the medians and
# ratios of medians at 4 B, 1 MiB and 64 MiB as a markdown table, and bin/collectives-plot draws
# busbw against size per op (OUT/busbw-<op>.png).
#
#   bash ../shared/peers/setup.sh                     # once per machine: torch (gloo), Open MPI, iperf3
#   perf/scripts/peer_compare.sh                      # all_reduce all_gather broadcast all_to_all, 3 rounds
#   OPS="all_reduce" ROUNDS=5 perf/scripts/peer_compare.sh
#   OPS="all_reduce broadcast barrier" MAX=4 SIZES=4 REPEAT=3 ROUNDS=5 perf/scripts/peer_compare.sh  # 4 B only,
#       ours the median of 3 timings per run (each peer's own benchmark averages its iterations)
#   OPS="all_reduce broadcast barrier" UNIX_TOO=1 ROUNDS=5 perf/scripts/peer_compare.sh   # shared memory
#       against Unix sockets (rc_unix) and Open MPI shm (broadcast, barrier: perf/scripts/mpi_ops_bench.py)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PEERS="${PEERS:-$ROOT/../shared/peers}"
[ -d "$PEERS" ] || PEERS=/work/shared/peers
OPS="${OPS:-all_reduce all_gather broadcast all_to_all}"
ROUNDS="${ROUNDS:-3}"
WORLD="${WORLD:-2}"
MAX="${MAX:-67108864}"
REPEAT="${REPEAT:-1}"   # timings per size within one run of ours (--repeat: their median)
PY="${PYTHON:-/usr/bin/python3}"
OUT="${OUT:-$ROOT/perf/out/peer-compare-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"
MPI=(mpirun --allow-run-as-root --oversubscribe -np "$WORLD")

{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n), $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $(java -version 2>&1 | head -1); $("$PY" -c 'import torch; print("torch", torch.__version__)'); $(mpirun --version | head -1)"
} | tee "$OUT/machine.txt"
"$ROOT/bin/collectives-perf" --help >/dev/null   # build once, outside the timed runs

for ((r = 1; r <= ROUNDS; r++)); do
  echo "## round $r $(date -u +%T)" >&2
  for op in $OPS; do
    "$ROOT/bin/collectives-perf" "$op" --world "$WORLD" -b 4 -e "$MAX" -f 4 --repeat "$REPEAT" > "$OUT/rc-$op-$r.txt"
    if [[ "${UNIX_TOO:-0}" == 1 ]]; then  # the same with Unix sockets instead of shared memory
      RC_RANK_JAVA_OPTS="-Drc.transport.sharedMemory=false" \
          "$ROOT/bin/collectives-perf" "$op" --world "$WORLD" -b 4 -e "$MAX" -f 4 --repeat "$REPEAT" > "$OUT/rc_unix-$op-$r.txt"
    fi
    if [[ "$op" != barrier ]]; then  # torch_gloo_bench.py has no barrier
      "$PY" "$PEERS/torch_gloo_bench.py" --world "$WORLD" --op "$op" --min 4 --max "$MAX" --step 4 \
          --port $((20000 + RANDOM % 20000)) > "$OUT/gloo-$op-$r.txt" 2>/dev/null
    fi
    if [[ "$op" == broadcast || "$op" == barrier ]]; then  # the shared mpi_bench.py runs Allreduce only
      "${MPI[@]}" "$PY" "$ROOT/perf/scripts/mpi_ops_bench.py" "$op" "$MAX" > "$OUT/mpi_shm-$op-$r.txt" 2>/dev/null
    fi
    if [[ "$op" == all_reduce ]]; then
      "${MPI[@]}" --mca btl tcp,self --mca btl_tcp_if_include lo "$PY" "$PEERS/mpi_bench.py" all_reduce "$MAX" \
          > "$OUT/mpi_tcp-$op-$r.txt" 2>/dev/null
      "${MPI[@]}" "$PY" "$PEERS/mpi_bench.py" all_reduce "$MAX" > "$OUT/mpi_shm-$op-$r.txt" 2>/dev/null
    fi
  done
  port=$((40000 + RANDOM % 10000))
  iperf3 -s -D -1 -p "$port" >/dev/null 2>&1; sleep 0.5
  iperf3 -c 127.0.0.1 -p "$port" -t 5 -J > "$OUT/iperf3-$r.json" 2>/dev/null || true
done
"$PY" "$ROOT/perf/scripts/peer_compare_summary.py" "$OUT" ${SIZES:-} | tee "$OUT/summary.md"
for op in $OPS; do   # busbw against size, us and the peers
  "$ROOT/bin/collectives-plot" --op "$op" -o "$OUT/busbw-$op.png" "$OUT" >/dev/null || true
done
