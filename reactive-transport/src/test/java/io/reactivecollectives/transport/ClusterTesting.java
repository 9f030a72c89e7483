package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Shared helpers of the transport's multi-rank tests. */
final class ClusterTesting {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private ClusterTesting() {
    }

    /** One input per rank (seeded by rank), shape {@code [n]}. */
    static List<Tensor> inputs(int world, DType dtype, ReduceOp op, long seed, long n) {
        List<Tensor> out = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            out.add(Reference.input(dtype, op, seed * 31 + r, n));
        }
        return out;
    }

    static List<Tensor> copies(List<Tensor> ts) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : ts) {
            out.add(t.copy());
        }
        return out;
    }

    static void releaseAll(List<Tensor> ts) {
        for (Tensor t : ts) {
            if (t.refCnt() > 0) {
                t.release();
            }
        }
    }

    /** Whether {@code actual} matches {@code expected}: exactly, or within tolerance for AVG/PREMUL_SUM on floats. */
    static boolean matches(Tensor actual, Tensor expected, ReduceOp op) {
        if (op != null && Reference.approximate(op, actual.dtype())) {
            double tol = actual.dtype().byteSize() == 2 ? 1e-2 : 1e-6;
            return actual.allClose(expected, tol, tol);
        }
        return actual.contentEquals(expected);
    }

    static String describe(Tensor t) {
        StringBuilder sb = new StringBuilder(t.toString()).append(" [");
        for (long i = 0; i < Math.min(8, t.numel()); i++) {
            sb.append(i == 0 ? "" : ", ").append(t.getDouble(i));
        }
        return sb.append(t.numel() > 8 ? ", ...]" : "]").toString();
    }

    static <T> T withCluster(int world, GroupOptions options, Function<LocalCluster, T> body) {
        LocalCluster cluster = LocalCluster.start(world, options).block(TIMEOUT);
        try {
            return body.apply(cluster);
        } finally {
            cluster.close();
        }
    }
}
