package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/** Helpers of the full-collective-set tests (gathers, scatters, reduce-scatters, all-to-all...). */
final class FullSetTesting {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Element counts tried everywhere: empty, one, odd, and several segments of {@link #OPTIONS}. */
    static final long[] SIZES = {0, 1, 7, 1003};

    /** Small segments, so that a thousand elements already run many pipelined lanes. */
    static final GroupOptions OPTIONS = GroupOptions.defaults().withGroupId("full-set").withSegmentBytes(512)
            .withPipelineDepth(4);

    private FullSetTesting() {
    }

    /** A tensor of random bytes (0 or 1 for BOOL) of {@code shape}; any bit pattern, compared bitwise. */
    static Tensor random(DType dtype, long seed, long... shape) {
        Tensor t = Tensor.empty(dtype, shape);
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[] bytes = new byte[(int) t.nbytes()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = dtype.isBool() ? (byte) rnd.nextInt(2) : (byte) rnd.nextInt(256);
        }
        t.buffer().setBytes(0, bytes);
        return t;
    }

    /** {@code count} tensors of zeros of {@code shape}. */
    static List<Tensor> zeros(int count, DType dtype, long... shape) {
        List<Tensor> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(Tensor.zeros(dtype, shape));
        }
        return out;
    }

    static void release(Collection<Tensor> ts) {
        for (Tensor t : ts) {
            if (t != null && t.refCnt() > 0) {
                t.release();
            }
        }
    }

    static void releaseNested(Collection<? extends Collection<Tensor>> ts) {
        for (Collection<Tensor> l : ts) {
            release(l);
        }
    }

    /**
     * Same dtype, shape and bytes, compared through one NIO view each: {@link Tensor#contentEquals}
     * reads 8 bytes per call, and under the paranoid leak detector every call on a tracked buffer
     * records a stack trace, seconds for a megabyte.
     */
    static boolean same(Tensor got, Tensor want) {
        if (got.dtype() != want.dtype() || !Arrays.equals(got.shape(), want.shape())) {
            return false;
        }
        int len = (int) got.nbytes();
        return len == 0 || got.buffer().nioBuffer(0, len).equals(want.buffer().nioBuffer(0, len));
    }

    static String describe(Tensor t) {
        StringBuilder sb = new StringBuilder(t.toString()).append(" [");
        for (long i = 0; i < Math.min(8, t.numel()); i++) {
            sb.append(i == 0 ? "" : ", ").append(t.getDouble(i));
        }
        return sb.append(t.numel() > 8 ? ", ...]" : "]").toString();
    }

    static String where(Object... parts) {
        return Arrays.toString(parts);
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
