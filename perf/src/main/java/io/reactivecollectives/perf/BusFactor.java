package io.reactivecollectives.perf;

import java.util.List;

/** nccl-tests' bus-bandwidth factors (PERFORMANCE.md), by op name as nccl-tests and PyTorch name ops. */
final class BusFactor {

    private static final List<String> OPS = List.of("all_reduce", "broadcast", "reduce", "all_gather",
            "reduce_scatter", "all_to_all", "gather", "scatter", "barrier");

    private BusFactor() {
    }

    static boolean known(String op) {
        return OPS.contains(op);
    }

    static List<String> names() {
        return OPS;
    }

    /** Ops whose element count must divide by the world size (one piece per rank); a barrier has none. */
    static boolean splitsByWorld(String op) {
        return !op.equals("all_reduce") && !op.equals("broadcast") && !op.equals("reduce") && !op.equals("barrier");
    }

    /** busbw = algbw x this factor. */
    static double of(String op, int n) {
        switch (op) {
            case "all_reduce": return 2.0 * (n - 1) / n;
            case "broadcast":
            case "reduce": return 1.0;
            case "barrier": return 0.0;
            default: return (n - 1) / (double) n;
        }
    }
}
