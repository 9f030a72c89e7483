#!/usr/bin/env bash
# tcpcpu_profile.sh: where the CPU of an all-reduce loop across namespace hosts goes. Runs the same
# job as warmup_compare.sh (HOSTS x PER_HOST ranks, SIZE, RATE, SECS) once, for our ranks (JOPTS:
# extra JVM options) or for gloo (WHAT=gloo), and from DELAY s on, for WINDOW s, looks at host 0's
# first rank from outside: CPU per thread (utime+stime from /proc/<pid>/task/*/stat, summed by
# thread name with digits dropped), system calls by kind and context switches (perf stat on
# tracepoints), and the ops rank 0 finished meanwhile, so everything is also given per all-reduce.
# PERF=1 also samples that rank with perf record -g (kernel stacks; Java frames unnamed) and prints the
# top symbols by self time (perf-report.txt).
# JFR=1 also records jdk.ExecutionSample every 10 ms on that rank (Java frames only) and prints
# the top frames of the window.
#
#   HOSTS=4 PER_HOST=1 SIZE=64M RATE=1gbit JOPTS='-Drc.transport.spinMicros=0' perf/scripts/tcpcpu_profile.sh OUTDIR
#
# Needs root, the perf module built (bin/collectives-perf builds it) and perf(1).
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HOSTS="${HOSTS:-4}"; PER_HOST="${PER_HOST:-1}"; SIZE="${SIZE:-64M}"; RATE="${RATE:-1gbit}"
SECS="${SECS:-40}"; DELAY="${DELAY:-20}"; WINDOW="${WINDOW:-12}"; JOPTS="${JOPTS:-}"; WHAT="${WHAT:-java}"; JFR="${JFR:-0}"
OUT="${1:-$ROOT/perf/out/tcpcpu-profile}"
mkdir -p "$OUT"; chmod 777 "$OUT"
cd "$ROOT"
CP="$(ls perf/target/perf-*-SNAPSHOT.jar | grep -v jmh | head -1):$(cat perf/target/collectives-perf.classpath)"
BYTES=$(python3 -c "s='$SIZE'; m={'K':1<<10,'M':1<<20,'G':1<<30}; print(int(s[:-1])*m[s[-1]] if s[-1] in m else int(s))")
TAG="rcprof$$"
TOTAL=$((HOSTS * PER_HOST))
if [[ "$WHAT" == gloo ]]; then
  cmd="/usr/bin/python3 perf/scripts/gloo_warmup.py $BYTES $SECS $TAG"
else
  jfr=""
  [[ "$JFR" == 1 ]] && jfr="-XX:StartFlightRecording=filename=$OUT/rank0.jfr,settings=$OUT/exec.jfc,delay=${DELAY}s,duration=${WINDOW}s"
  cat > "$OUT/exec.jfc" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">10 ms</setting></event>
  <event name="jdk.NativeMethodSample"><setting name="enabled">true</setting><setting name="period">10 ms</setting></event>
</configuration>
EOF
  cmd="java -Drc.profile.tag=$TAG $JOPTS -cp $CP io.reactivecollectives.perf.WarmupCurve $BYTES $SECS"
fi
body='export START_MS=$(date +%s%3N); for l in $(seq 0 '"$((PER_HOST - 1))"'); do
  J=""; [ {host} = 0 ] && [ $l = 0 ] && J="'"${jfr:-}"'"
  RANK=$(( {host} * '"$PER_HOST"' + l )) LOCAL_RANK=$l WORLD_SIZE='"$TOTAL"' LOCAL_WORLD_SIZE='"$PER_HOST"' \
  MASTER_ADDR=h0 MASTER_PORT=29712 GLOO_SOCKET_IFNAME=eth0 '"${cmd/java /java \$J }"' & done; wait'
bash perf/scripts/netns_hosts.sh --hosts "$HOSTS" --rate "$RATE" -- bash -c "$body" > "$OUT/run.txt" 2>&1 &
runner=$!
sleep "$DELAY"
# host 0's first rank: the process with the tag and RANK=0 in its environment
pid=""
for p in $(pgrep -f "$TAG"); do
  tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx 'RANK=0' && { pid=$p; break; }
done
snap() {  # thread name (digits dropped) -> ticks
  for t in /proc/$pid/task/*; do
    s=$(cat $t/stat 2>/dev/null) || continue
    name=$(sed 's/^[0-9]* (\(.*\)) .*/\1/' <<< "$s" | tr -d '0-9' | tr ' ' '_')
    rest=$(sed 's/^.*) //' <<< "$s")
    echo "$name $(awk '{print $12 + $13}' <<< "$rest")"
  done | awk '{a[$1] += $2} END {for (k in a) print k, a[k]}' | sort
}
if [[ -n "$pid" ]]; then
  ops0=$(grep -c '^\[h0\] op ' "$OUT/run.txt")
  snap > "$OUT/threads0.txt"
  [[ "${PERF:-0}" == 1 ]] && perf record -q -F 997 -g -p "$pid" -o "$OUT/perf.data" -- sleep "$WINDOW" >/dev/null 2>&1 &
  perf stat -x, -e 'task-clock,context-switches,raw_syscalls:sys_enter,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_read,syscalls:sys_enter_readv,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvmsg,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_futex,syscalls:sys_enter_poll,syscalls:sys_enter_ppoll' \
    -p "$pid" -o "$OUT/perfstat.txt" -- sleep "$WINDOW" 2>/dev/null
  snap > "$OUT/threads1.txt"
  ops1=$(grep -c '^\[h0\] op ' "$OUT/run.txt")
else
  echo "no rank 0 process found" >&2
fi
wait "$runner"
python3 - "$OUT" "${ops0:-0}" "${ops1:-0}" "$(getconf CLK_TCK)" <<'EOF' | tee "$OUT/summary.txt"
import sys, os
out, ops0, ops1, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ops = max(1, ops1 - ops0)
print(f"window ops (rank 0) {ops1 - ops0}")
def read(f):
    try: return {l.split()[0]: int(l.split()[1]) for l in open(os.path.join(out, f))}
    except FileNotFoundError: return {}
a, b = read("threads0.txt"), read("threads1.txt")
rows = sorted(((b[k] - a.get(k, 0)) * 1e3 / hz, k) for k in b)
tot = sum(r[0] for r in rows)
print(f"rank 0 CPU in window {tot:.0f} ms, per op {tot / ops:.1f} ms; by thread (ms per op):")
for ms, k in reversed(rows):
    if ms > 0: print(f"  {k:24} {ms / ops:8.2f}")
try:
    print("perf stat (per op):")
    for l in open(os.path.join(out, "perfstat.txt")):
        p = l.strip().split(",")
        if len(p) > 2 and p[0] and p[0][0].isdigit():
            print(f"  {p[2]:36} {float(p[0]) / ops:12.1f}")
except FileNotFoundError: pass
EOF
grep -E '^\[h0\] cpu_ms_per_op' "$OUT/run.txt" | tee -a "$OUT/summary.txt"
if [[ -f "$OUT/perf.data" ]]; then
  perf report -i "$OUT/perf.data" --no-children --sort comm,dso,sym --stdio --percent-limit 0.3 2>/dev/null | grep -v '^$' | grep -E '^ +[0-9]' | head -60 > "$OUT/perf-report.txt"
  head -40 "$OUT/perf-report.txt"
  perf report -i "$OUT/perf.data" --no-children --sort dso,sym --stdio --percent-limit 0.3 2>/dev/null | grep -E '^ +[0-9]' | head -60 > "$OUT/perf-report-sym.txt"
  rm -f "$OUT/perf.data"
fi
if [[ -f "$OUT/rank0.jfr" ]]; then
  jfr print --events jdk.ExecutionSample "$OUT/rank0.jfr" > "$OUT/samples.txt"
  python3 - "$OUT/samples.txt" <<'EOF' | tee "$OUT/topframes.txt"
import sys, collections, re
top, incl, n = collections.Counter(), collections.Counter(), 0
cur = None
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("jdk.ExecutionSample"): cur = []; n += 1
    elif cur is not None and re.match(r"^[\w.$<>]+\(.*line:", line):
        cur.append(re.sub(r"\s+line:.*", "", line))
    elif line == "]" or line == "}":
        if cur:
            top[cur[0]] += 1
            for f in set(cur): incl[f] += 1
        cur = None
print(f"{n} samples; top frames:")
for f, c in top.most_common(25): print(f"  {c:5} {100 * c / max(1, n):5.1f}%  {f}")
print("inclusive:")
for f, c in incl.most_common(40): print(f"  {c:5} {100 * c / max(1, n):5.1f}%  {f}")
EOF
fi
