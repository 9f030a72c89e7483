#!/usr/bin/env bash
# djl_ddp_compare.sh: the DJL trainer (reactive-djl) against PyTorch DDP (gloo) on the same
# transformer encoder (samples-djl's TransformerEncoder, perf/scripts/ddp/torch_ddp_train.py's mirror),
# same batch per rank, plain SGD, one intra-op and one inter-op thread per rank on both sides; rounds
# alternate. Each round: torch single process, DJL single process (no collectives), torch DDP on NPROC
# ranks, ours on NPROC ranks (bin/collectives-train --engine djl). Prints one JSON line per run
# (ms_per_step: wall mean over the timed steps) to OUT.
#
#   ROUNDS=3 NPROC=2 PRESET=base BATCH=16 STEPS=40 WARMUP=8 perf/scripts/djl_ddp_compare.sh
#   HOSTS=2 PER_HOST=2 RATE=1gbit perf/scripts/djl_ddp_compare.sh    # across network namespaces (root)
# UNSTAGED=1 adds a run of ours with --unstaged (one backward pass, then every bucket) to each round;
# DIRECTED=1 (across hosts) a run of ours started with the compiler directives collectives-run gives its
# ranks (one host runs ours through collectives-run, which gives them already; plain `java` ranks get
# the data path's share of them from reactive-transport at run time, rc.jit.directives); QUICK=1 a run of ours
# on C1 alone (-XX:TieredStopAtLevel=1, collectives-run --jit quick). ALSO="tag=ARGS;tag2=ARGS2" adds runs of
# ours with more DjlTraining arguments (e.g. ALSO="b4m=--bucket-cap-kb 4096"), tagged ours-tag.
# TORCH_ALSO="tag=ARGS" adds runs of PyTorch DDP with more torch_ddp_train.py arguments, tagged torch-ddp-tag
# (e.g. TORCH_ALSO="sparse=--sparse-embedding" with ALSO="sparse=--sparse-embedding": both sides send the token
# table's gradient as its rows).
# BEFORE_JAR=path (a jar of an earlier build, named as this build's: e.g. /tmp/before/reactive-djl-0.1.0-SNAPSHOT.jar)
# adds a run of ours with that jar in place of this build's, tagged ours-before: an A/B inside the same rounds.
#
# PyTorch from Debian links the reference BLAS (about 20 times slower than OpenBLAS on this model):
# OPENBLAS (default /tmp/openblas/root/usr/lib/x86_64-linux-gnu/openblas-serial, made by
# `apt-get download libopenblas0-serial && dpkg -x`, see perf/scripts/ddp/README.md) is put on
# torch's LD_LIBRARY_PATH when it exists. libtorch on our side is DJL's 2.7.1, with its own BLAS.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ROUNDS="${ROUNDS:-3}"; NPROC="${NPROC:-2}"; PRESET="${PRESET:-base}"; BATCH="${BATCH:-16}"
STEPS="${STEPS:-40}"; WARMUP="${WARMUP:-8}"; LR="${LR:-0.003}"; HOSTS="${HOSTS:-0}"; PER_HOST="${PER_HOST:-2}"; RATE="${RATE:-1gbit}"
OPENBLAS="${OPENBLAS:-/tmp/openblas/root/usr/lib/x86_64-linux-gnu/openblas-serial}"
OUT="${OUT:-$ROOT/perf/out/djl_ddp.txt}"
PY=/usr/bin/python3
mkdir -p "$(dirname "$OUT")"; : > "$OUT"
cd "$ROOT"
TORCH_ENV=(env); [[ -d "$OPENBLAS" ]] && TORCH_ENV=(env LD_LIBRARY_PATH="$OPENBLAS")
bin/collectives-train --engine djl --help >/dev/null    # builds samples-djl if needed
CP="$(ls samples-djl/target/samples-djl-*.jar | grep -v -e sources -e javadoc | head -1):$(cat samples-djl/target/collectives-run.classpath)"
JOPTS=(-Dai.djl.offline=true -Dai.djl.pytorch.num_threads=1 -Dai.djl.pytorch.num_interop_threads=1 -Dorg.slf4j.simpleLogger.log.ai.djl=warn -Dorg.slf4j.simpleLogger.log.ai.djl.util.cuda=error)
echo "# $(date -u +%FT%TZ) $(uname -n), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); preset $PRESET batch $BATCH/rank steps $STEPS warm-up $WARMUP lr $LR; hosts $HOSTS" | tee -a "$OUT"
TORCH_ARGS=(--preset "$PRESET" --batch "$BATCH" --steps "$STEPS" --warmup "$WARMUP" --lr "$LR")
OURS_ARGS=(--preset "$PRESET" --batch "$BATCH" --steps "$STEPS" --warmup-steps "$WARMUP" --lr "$LR" --nosync-steps 10 --json)
tag() { sed "s/^{/{\"round\": $round, \"run\": \"$1\", /"; }
# rank 0's JSON line of a run of ours on one host, tagged, into OUT: ... | rank0_json TAG
rank0_json() { sed -n 's/^\[rank 0\] \({.*\)/\1/p' | tag "$1" >> "$OUT"; }
# the class path with BEFORE_JAR in place of this build's jar of the same name
before_cp() { sed "s|[^:]*/$(basename "$BEFORE_JAR")|$BEFORE_JAR|" <<<"$CP"; }
# one run across the namespaces: per_rank TAG PORT COMMAND, COMMAND started once per rank slot of every
# host with the rank's environment (torchrun's variables, gloo's interface); each rank's JSON line into OUT
per_rank() {
  "${NETNS[@]}" bash -c 'for l in $(seq 0 '"$((PER_HOST - 1))"'); do
      RANK=$(( {host} * '"$PER_HOST"' + l )) LOCAL_RANK=$l WORLD_SIZE='"$WORLD"' LOCAL_WORLD_SIZE='"$PER_HOST"' \
      MASTER_ADDR=h0 MASTER_PORT='"$2"' GLOO_SOCKET_IFNAME=eth0 '"$3"' & done; wait' 2>/dev/null \
    | grep -o '{"framework".*' | tag "$1" >> "$OUT"
}
# ours across the namespaces: ours_netns TAG PORT JVM_OPTIONS EXTRA_ARGS
ours_netns() {
  per_rank "$1" "$2" "java $3 ${JOPTS[*]} -cp ${RUN_CP:-$CP} io.reactivecollectives.samples.djl.DjlTraining ${OURS_ARGS[*]} $4"
}
# PyTorch DDP across the namespaces: torch_netns TAG PORT EXTRA_ARGS
torch_netns() {
  per_rank "$1" "$2" "${TORCH_ENV[*]} $PY perf/scripts/ddp/torch_ddp_train.py --env ${TORCH_ARGS[*]} $3"
}
# the file collectives-run gives its ranks: its start-up directives and the transport's data-path ones in one list
LAUNCH_DIRECTIVES="$(mktemp /tmp/rc-launch-directives-XXXX.json)"; trap 'rm -f "$LAUNCH_DIRECTIVES"' EXIT
{ sed '$d' reactive-tools/src/main/resources/io/reactivecollectives/tools/launch/compiler-directives.json | sed '$ s/$/,/'
  sed '1d' reactive-transport/src/main/resources/META-INF/io.reactivecollectives/data-path-directives.json; } > "$LAUNCH_DIRECTIVES"
for ((round = 1; round <= ROUNDS; round++)); do
  if [[ "$HOSTS" -eq 0 ]]; then
    "${TORCH_ENV[@]}" $PY perf/scripts/ddp/torch_ddp_train.py --world 1 "${TORCH_ARGS[@]}" 2>&1 | grep '^{' | tag torch-single >> "$OUT"
    java "${JOPTS[@]}" -cp "$CP" io.reactivecollectives.samples.djl.SingleProcessBench preset="$PRESET" batch="$BATCH" steps="$STEPS" warmup="$WARMUP" lr="$LR" 2>&1 \
      | sed -n 's/.*ms\/step median=\([0-9.]*\).*/{"framework": "djl", "world": 1, "ms_per_step_median": \1}/p' | tag djl-single >> "$OUT"
    "${TORCH_ENV[@]}" $PY perf/scripts/ddp/torch_ddp_train.py --world "$NPROC" "${TORCH_ARGS[@]}" 2>&1 | grep '^{' | tag torch-ddp >> "$OUT"
    while IFS='=' read -r name args; do
      # shellcheck disable=SC2086  # the variant's arguments are words
      [[ -n "$name" ]] && "${TORCH_ENV[@]}" $PY perf/scripts/ddp/torch_ddp_train.py --world "$NPROC" "${TORCH_ARGS[@]}" $args < /dev/null 2>&1 \
        | grep '^{' | tag "torch-ddp-$name" >> "$OUT"
    done < <(tr ';' '\n' <<<"${TORCH_ALSO:-}")
    NPROC=$NPROC bin/collectives-train --engine djl "${OURS_ARGS[@]}" 2>&1 | rank0_json ours
    if [[ "${UNSTAGED:-0}" == 1 ]]; then
      NPROC=$NPROC bin/collectives-train --engine djl "${OURS_ARGS[@]}" --unstaged 2>&1 | rank0_json ours-unstaged
    fi
    if [[ "${QUICK:-0}" == 1 ]]; then
      bin/collectives-run --nproc-per-node "$NPROC" --jit quick --classpath "$CP" -- io.reactivecollectives.samples.djl.DjlTraining \
        "${OURS_ARGS[@]}" 2>&1 | rank0_json ours-quick
    fi
    if [[ -n "${BEFORE_JAR:-}" ]]; then
      NPROC=$NPROC bin/collectives-run --nproc-per-node "$NPROC" --classpath "$(before_cp)" \
        -- io.reactivecollectives.samples.djl.DjlTraining "${OURS_ARGS[@]}" 2>&1 | rank0_json ours-before
    fi
    while IFS='=' read -r name args; do
      # shellcheck disable=SC2086  # the variant's arguments are words
      [[ -n "$name" ]] && NPROC=$NPROC bin/collectives-train --engine djl "${OURS_ARGS[@]}" $args < /dev/null 2>&1 \
        | rank0_json "ours-$name"
    done < <(tr ';' '\n' <<<"${ALSO:-}")
  else
    WORLD=$((HOSTS * PER_HOST))
    NETNS=(bash perf/scripts/netns_hosts.sh --hosts "$HOSTS" --rate "$RATE" --)
    torch_netns torch-ddp 29711 ""
    port=29740
    while IFS='=' read -r name args; do
      [[ -n "$name" ]] && torch_netns "torch-ddp-$name" $((port++)) "$args" < /dev/null
    done < <(tr ';' '\n' <<<"${TORCH_ALSO:-}")
    ours_netns ours 29712 "" ""
    if [[ "${DIRECTED:-0}" == 1 ]]; then   # the compiler directives collectives-run gives its ranks
      ours_netns ours-directed 29714 "-XX:+UnlockDiagnosticVMOptions -XX:CompilerDirectivesFile=$LAUNCH_DIRECTIVES" ""
    fi
    if [[ "${QUICK:-0}" == 1 ]]; then      # C1 alone (collectives-run --jit quick)
      ours_netns ours-quick 29715 "-XX:TieredStopAtLevel=1" ""
    fi
    if [[ "${UNSTAGED:-0}" == 1 ]]; then
      ours_netns ours-unstaged 29713 "" --unstaged
    fi
    if [[ -n "${BEFORE_JAR:-}" ]]; then
      RUN_CP="$(before_cp)" ours_netns ours-before 29716 "" ""
    fi
    port=29720
    while IFS='=' read -r name args; do
      [[ -n "$name" ]] && ours_netns "ours-$name" $((port++)) "" "$args" < /dev/null
    done < <(tr ';' '\n' <<<"${ALSO:-}")
  fi
  tail -n 5 "$OUT"
done
