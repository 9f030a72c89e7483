#!/usr/bin/env bash
# tcpcpu_split.sh: user and system CPU per all-reduce (SIZE bytes, default 64 MiB), ranks summed, ours
# and gloo, in the namespaces (HOSTS x PER_HOST ranks at RATE), read from /proc/<pid>/stat of every
# rank between FROM and TO seconds after start (after the warm-up the issue asks for); rounds alternate.
#
#   HOSTS=4 RATE=1gbit ROUNDS=2 FROM=60 TO=110 perf/scripts/tcpcpu_split.sh
#   HOSTS=2 PER_HOST=2 SIZE=1048576 perf/scripts/tcpcpu_split.sh
#   VARIANTS='ours=java;nospin=java -Drc.transport.spinMicros=0;seg1m=java -- 1M'
#   (name=java and its options, ';'-separated; after " -- ", WarmupCurve's segment size and depth)
#
# Prints per run: label, round, ops in the window, user ms/op, sys ms/op (ranks summed), and the
# voluntary and involuntary context switches per op (/proc/<pid>/status, all threads); threads.txt in OUT
# splits the CPU by thread kind (name without digits: event loops, C2 compiler, GC, ...). Needs root
# (namespaces), the perf module built (bin/collectives-perf builds it) and the peers (../shared/peers/setup.sh).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOSTS="${HOSTS:-4}"; PER_HOST="${PER_HOST:-1}"; SIZE="${SIZE:-67108864}"; RATE="${RATE:-1gbit}"; ROUNDS="${ROUNDS:-2}"; FROM="${FROM:-60}"; TO="${TO:-110}"
OUT="${OUT:-$ROOT/perf/out/tcpcpu-split}"; mkdir -p "$OUT"
# two runs at once share the namespaces' names and the ranks' /tmp files: the second waits for the first
exec 9>/tmp/tcpcpu_split.lock; flock -w 3600 9 || { echo "tcpcpu_split: another run holds /tmp/tcpcpu_split.lock" >&2; exit 1; }
cd "$ROOT"
bin/collectives-perf --op all_reduce --world 1 --min 4 --max 4 --iters 1 >/dev/null 2>&1   # builds if needed
CP="$(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1):$(cat perf/target/collectives-perf.classpath)"
SECS=$((TO + 15))
VARIANTS="${VARIANTS:-ours=java}"
IFS=';' read -r -a VARS <<< "$VARIANTS"
# one host's rank and its sampler: the rank's op lines, then "cpu <utime> <stime> <vcsw> <ivcsw>" at FROM and TO
host_cmd() {
  local cmd=$1
  cat <<EOS
export START_MS=\$(date +%s%3N)
sample() {
  read -r -a f < /proc/\$1/stat
  local v=0 i=0
  for t in /proc/\$1/task/*/status; do
    v=\$((v + \$(awk '/^voluntary_ctxt_switches/ {print \$2}' \$t 2>/dev/null || echo 0)))
    i=\$((i + \$(awk '/^nonvoluntary_ctxt_switches/ {print \$2}' \$t 2>/dev/null || echo 0)))
  done
  echo "cpu \$(( \$(date +%s%3N) - START_MS )) \${f[13]} \${f[14]} \$v \$i"
}
threads() {   # each thread's id, name, user and system ticks: "<mark> <tid> <name> <utime> <stime>"
  for t in /proc/\$1/task/*/stat; do
    local st; st=\$(cat \$t 2>/dev/null) || continue
    local name=\${st#*(}; name=\${name%)*}; local rest=(\${st##*)})
    echo "\$2 \${st%% *} \${name// /_} \${rest[11]} \${rest[12]}"
  done
}
pids=()
for l in \$(seq 0 $((PER_HOST - 1))); do
  RANK=\$(( {host} * $PER_HOST + l )) LOCAL_RANK=\$l WORLD_SIZE=$((HOSTS * PER_HOST)) LOCAL_WORLD_SIZE=$PER_HOST \\
    MASTER_ADDR=h0 MASTER_PORT=29713 GLOO_SOCKET_IFNAME=eth0 $cmd > /tmp/split-{host}-\$l.out 2>&1 &
  pids+=(\$!)
done
sleep $FROM
for l in \$(seq 0 $((PER_HOST - 1))); do sample \${pids[\$l]} > /tmp/split-{host}-\$l.cpu; threads \${pids[\$l]} 0 > /tmp/split-{host}-\$l.threads; done
sleep $((TO - FROM))
for l in \$(seq 0 $((PER_HOST - 1))); do sample \${pids[\$l]} >> /tmp/split-{host}-\$l.cpu; threads \${pids[\$l]} 1 >> /tmp/split-{host}-\$l.threads; done
wait
EOS
}
summary() {
  local label=$1 round=$2 tick; tick=$(getconf CLK_TCK)
  python3 - "$label" "$round" "$tick" "$HOSTS" "$PER_HOST" "$SIZE" <<'PY'
import sys
label, rnd, tick, hosts, per = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
size = sys.argv[6]
ops = None; u = s = v = iv = 0.0
for h, l in [(h, l) for h in range(hosts) for l in range(per)]:
    rows = [r.split() for r in open(f"/tmp/split-{h}-{l}.cpu")]
    (t0, u0, s0, v0, i0), (t1, u1, s1, v1, i1) = [list(map(int, r[1:])) for r in rows]
    u += (u1 - u0) * 1000 / tick; s += (s1 - s0) * 1000 / tick; v += v1 - v0; iv += i1 - i0
    if h == 0 and l == 0:
        ends = [float(r.split()[2]) * 1000 for r in open("/tmp/split-0-0.out") if r.startswith("op ")]
        ops = sum(1 for e in ends if t0 <= e <= t1)
print(f"{label} r{rnd} {hosts}x{per} {size}B: ops {ops} user_ms_per_op {u/ops:.1f} sys_ms_per_op {s/ops:.1f} total {(u+s)/ops:.1f} vcsw_per_op {v/ops:.0f} ivcsw_per_op {iv/ops:.0f}")
# by thread kind (the name without its digits), ranks summed, into threads.txt: user and system ms per op
import re, os, collections
kinds = collections.defaultdict(lambda: [0.0, 0.0])
for h, l in [(h, l) for h in range(hosts) for l in range(per)]:
    path = f"/tmp/split-{h}-{l}.threads"
    if not os.path.exists(path):
        continue
    first = {}
    for row in open(path):
        mark, key, name, ut, st = row.split()
        if mark == "0":
            first[key] = (int(ut), int(st))
        else:
            u0, s0 = first.get(key, (0, 0))
            k = kinds[re.sub(r"[0-9]+", "#", name)]
            k[0] += (int(ut) - u0) * 1000 / tick; k[1] += (int(st) - s0) * 1000 / tick
if kinds:
    with open(os.environ.get("THREADS_OUT", "/dev/null"), "a") as f:
        for name, (tu, ts) in sorted(kinds.items(), key=lambda e: -(e[1][0] + e[1][1])):
            if tu + ts > 0:
                f.write(f"{label} r{rnd} {name} user_ms_per_op {tu/ops:.1f} sys_ms_per_op {ts/ops:.1f}\n")
PY
}
for round in $(seq 1 "$ROUNDS"); do
  for v in "${VARS[@]}" "gloo=/usr/bin/python3 perf/scripts/gloo_warmup.py $SIZE $SECS"; do
    label="${v%%=*}"; cmd="${v#*=}"
    extra=""; [[ "$cmd" == *" -- "* ]] && { extra="${cmd#* -- }"; cmd="${cmd%% -- *}"; }
    [[ $label == gloo ]] || cmd="$cmd -cp $CP io.reactivecollectives.perf.WarmupCurve $SIZE $SECS $extra"
    bash perf/scripts/netns_hosts.sh --hosts "$HOSTS" --rate "$RATE" -- bash -c "$(host_cmd "$cmd")" > "$OUT/$label-r$round.log" 2>&1
    THREADS_OUT="$OUT/threads.txt" summary "$label" "$round" | tee -a "$OUT/summary.txt"
    for h in $(seq 0 $((HOSTS - 1))); do for l in $(seq 0 $((PER_HOST - 1))); do   # each rank's op lines, kept
      cp "/tmp/split-$h-$l.out" "$OUT/$label-r$round-$h-$l.out" 2>/dev/null; done; done
  done
done
