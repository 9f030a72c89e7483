package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import io.netty.buffer.Unpooled;
import java.util.function.Function;

/** Shared helpers of the transport's multi-rank tests. */
final class ClusterTesting {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private ClusterTesting() {
    }

    /*
     * Element-wise work in these helpers happens on unpooled heap tensors: Netty's PARANOID leak
     * detector records a stack trace on every access to a pooled buffer, which makes element loops
     * over pooled tensors thousands of times slower. Pooled tensors are filled and read in bulk.
     */

    /** A zeroed tensor on an unpooled heap buffer (not leak-tracked, fast element access). */
    static Tensor heap(DType dtype, long n) {
        return Tensor.wrap(Unpooled.wrappedBuffer(new byte[Math.toIntExact(n * dtype.byteSize())]), dtype, n);
    }

    /** A heap copy of {@code t}'s elements (one bulk read), as a 1-D tensor. */
    static Tensor heapCopy(Tensor t) {
        return Tensor.wrap(Unpooled.wrappedBuffer(t.toByteArray()), t.dtype(), t.numel());
    }

    /** A pooled copy of a heap tensor (one bulk write). */
    static Tensor pooledCopy(Tensor heap) {
        Tensor t = Tensor.empty(heap.dtype(), heap.numel());
        t.buffer().setBytes(0, heap.buffer(), 0, (int) heap.nbytes());
        return t;
    }

    /** Heap inputs, one per rank (seeded by rank), with {@link Reference#input}'s value rules. */
    static List<Tensor> heapInputs(int world, DType dtype, ReduceOp op, long seed, long n) {
        List<Tensor> out = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            out.add(heapInput(dtype, op, seed * 31 + r, n));
        }
        return out;
    }

    static Tensor heapInput(DType dtype, ReduceOp op, long seed, long n) {
        Tensor t = heap(dtype, n);
        SplittableRandom rnd = new SplittableRandom(seed);
        ReduceOp.Kind kind = op == null ? ReduceOp.Kind.SUM : op.kind();
        for (long i = 0; i < n; i++) {
            if (dtype.isBool()) {
                t.setDouble(i, rnd.nextInt(2));
            } else if (dtype.isFloatingPoint()) {
                if (kind == ReduceOp.Kind.PRODUCT) {
                    double[] choices = {-2, -1, -0.5, 0.5, 1, 2};
                    t.setDouble(i, choices[rnd.nextInt(choices.length)]);
                } else {
                    t.setDouble(i, (rnd.nextInt(33) - 16) / 2.0);
                }
            } else if (kind == ReduceOp.Kind.AVG) {
                switch (dtype) {
                    case INT8: t.setLong(i, rnd.nextInt(-32, 32)); break;
                    case UINT8: t.setLong(i, rnd.nextInt(0, 64)); break;
                    case INT32: t.setLong(i, rnd.nextInt(Integer.MIN_VALUE / 8, Integer.MAX_VALUE / 8)); break;
                    default: t.setLong(i, rnd.nextLong() >> 3); break;
                }
            } else {
                t.setLong(i, rnd.nextLong());
            }
        }
        return t;
    }

    /** A new pooled tensor of {@code n} elements equal to {@code value} (filled in bulk). */
    static Tensor filled(DType dtype, long n, double value) {
        return pooledCopy(heap(dtype, n).fill(value));
    }

    /** Sets every element of a pooled tensor to {@code value} (in bulk). */
    static Tensor fill(Tensor pooled, double value) {
        Tensor h = heap(pooled.dtype(), pooled.numel()).fill(value);
        pooled.buffer().setBytes(0, h.buffer(), 0, (int) h.nbytes());
        return pooled;
    }

    /** Pooled inputs made from heap ones. */
    static List<Tensor> pooled(List<Tensor> heaps) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor h : heaps) {
            out.add(pooledCopy(h));
        }
        return out;
    }

    /** The element-wise reduction of heap inputs, as a heap tensor (the rules of {@link Reference#reduce}). */
    static Tensor expected(List<Tensor> inputs, ReduceOp op) {
        Tensor first = inputs.get(0);
        DType dtype = first.dtype();
        Tensor out = heap(dtype, first.numel());
        int n = inputs.size();
        for (long i = 0; i < first.numel(); i++) {
            if (dtype.isFloatingPoint()) {
                double f = op.kind() == ReduceOp.Kind.PREMUL_SUM ? op.factor() : 1.0;
                double acc = inputs.get(0).getDouble(i) * f;
                for (int r = 1; r < n; r++) {
                    double v = inputs.get(r).getDouble(i);
                    switch (op.kind()) {
                        case SUM: case AVG: acc += v; break;
                        case PREMUL_SUM: acc += v * f; break;
                        case PRODUCT: acc *= v; break;
                        case MIN: acc = Math.min(acc, v); break;
                        case MAX: acc = Math.max(acc, v); break;
                        default: throw new IllegalArgumentException(op + " on " + dtype);
                    }
                }
                out.setDouble(i, op.kind() == ReduceOp.Kind.AVG ? acc / n : acc);
            } else if (dtype.isBool()) {
                boolean acc = inputs.get(0).getDouble(i) != 0;
                for (int r = 1; r < n; r++) {
                    boolean v = inputs.get(r).getDouble(i) != 0;
                    switch (op.kind()) {
                        case SUM: case MAX: case BOR: acc |= v; break;
                        case PRODUCT: case MIN: case BAND: acc &= v; break;
                        case BXOR: acc ^= v; break;
                        default: throw new IllegalArgumentException(op + " on " + dtype);
                    }
                }
                out.setDouble(i, acc ? 1 : 0);
            } else {
                boolean unsigned = dtype == DType.UINT8;
                long acc = value(inputs.get(0), i, unsigned);
                for (int r = 1; r < n; r++) {
                    long v = value(inputs.get(r), i, unsigned);
                    switch (op.kind()) {
                        case SUM: case AVG: acc += v; break;
                        case PRODUCT: acc *= v; break;
                        case MIN: acc = Math.min(acc, v); break;
                        case MAX: acc = Math.max(acc, v); break;
                        case BAND: acc &= v; break;
                        case BOR: acc |= v; break;
                        case BXOR: acc ^= v; break;
                        default: throw new IllegalArgumentException(op + " on " + dtype);
                    }
                    acc = wrap(acc, dtype);
                }
                out.setLong(i, op.kind() == ReduceOp.Kind.AVG ? acc / n : acc);
            }
        }
        return out;
    }

    private static long value(Tensor t, long i, boolean unsigned) {
        long v = t.getLong(i);
        return unsigned ? v & 0xFF : v;
    }

    private static long wrap(long v, DType dtype) {
        switch (dtype) {
            case INT8: return (byte) v;
            case UINT8: return v & 0xFF;
            case INT32: return (int) v;
            default: return v;
        }
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
    static boolean matches(Tensor pooledActual, Tensor expected, ReduceOp op) {
        Tensor actual = heapCopy(pooledActual);
        if (op != null && Reference.approximate(op, actual.dtype())) {
            double tol = actual.dtype().byteSize() == 2 ? 1e-2 : 1e-6;
            return actual.allClose(expected, tol, tol);
        }
        return actual.contentEquals(expected);
    }

    static String describe(Tensor pooled) {
        Tensor t = heapCopy(pooled);
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
