#!/usr/bin/env bash
# Object collectives' benchmark (issue 42), from the repository root:
#   perf/scripts/object_bench.sh allgather [--world 4 --bytes 100M --rounds 3]
#   perf/scripts/object_bench.sh keyed [--world 4 --keys 1000000 --overlap 0.1 --rounds 3]
#   perf/scripts/object_bench.sh torch [--world 4 --bytes 100M --rounds 3]   (PyTorch's all_gather_object, gloo)
# Builds what bin/collectives-perf builds (perf and what it depends on), then runs ObjectBench: one
# JVM per rank, an embedded store, rank 0 prints the rows. JVM options for the ranks: RC_OBJ_JVM.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:?allgather, keyed or torch}; shift
if [[ $mode == torch ]]; then
  exec /usr/bin/python3 perf/scripts/torch_object_bench.py "$@"
fi
bin/collectives-perf --help >/dev/null 2>&1 || true   # builds perf/target/classes and its class path on first use
CP="perf/target/classes:$(cat perf/target/collectives-perf.classpath)"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | sed -n 1p)"
exec java -Xmx512m -cp "$CP" io.reactivecollectives.perf.ObjectBench --mode "$mode" ${RC_OBJ_JVM:+--jvm "$RC_OBJ_JVM"} "$@"
