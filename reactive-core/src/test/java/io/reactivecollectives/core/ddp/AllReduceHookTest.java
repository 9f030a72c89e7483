package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default hook scales each bucket by {@code 1 / worldSize} in the bucket's own precision, in
 * place, then all-reduces it with SUM (here against a group of three whose all-reduce hands the
 * tensor back, so the result is the scaling alone).
 */
class AllReduceHookTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A group of {@code size} whose allReduce records the op and emits its tensor as it is. */
    private static ProcessGroup group(int size, List<ReduceOp> ops) {
        return (ProcessGroup) Proxy.newProxyInstance(ProcessGroup.class.getClassLoader(), new Class<?>[] {ProcessGroup.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "size":
                            return size;
                        case "allReduce":
                            ops.add((ReduceOp) args[1]);
                            return Mono.just((Tensor) args[0]);
                        case "toString":
                            return "group of " + size;
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    private static Tensor runHook(int worldSize, Tensor buffer, List<ReduceOp> ops) {
        Parameter p = new Parameter("p", Tensor.zeros(buffer.dtype(), buffer.numel()), Tensor.zeros(buffer.dtype(), buffer.numel()));
        try {
            GradBucket bucket = new GradBucket(0, 1, buffer, List.of(p));
            return new AllReduceHook(group(worldSize, ops)).runHook(bucket).block(WAIT);
        } finally {
            p.value().release();
            p.grad().release();
        }
    }

    @Test
    void float64BucketsAreScaledInFloat64() {
        double third = 1.0 / 3;
        double[] values = {third * (1 + 0x1p-40), 1 + 0x1p-40, -third * (1 + 0x1p-41), 0.1, 1e300, 7e-310, -0.0};
        Tensor buffer = Tensor.fromDoubles(values);
        List<ReduceOp> ops = new ArrayList<>();
        try {
            Tensor out = runHook(3, buffer, ops);
            assertSame(buffer, out, "reduced in place");
            assertEquals(List.of(ReduceOp.SUM.kind()), ops.stream().map(ReduceOp::kind).toList());
            double[] got = out.toDoubleArray();
            int differsFromFloat32 = 0;
            for (int i = 0; i < values.length; i++) {
                double want = values[i] * third;
                assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(got[i]),
                        "element " + i + ": " + values[i] + " / 3 = " + want + ", got " + got[i]);
                differsFromFloat32 += (double) ((float) values[i] * (float) third) != want ? 1 : 0;
            }
            assertTrue(differsFromFloat32 >= 5, "the values tell float32 scaling from float64: " + differsFromFloat32);
        } finally {
            buffer.release();
        }
    }

    @Test
    void float32And16BitBucketsAreScaledInFloat32() {
        float[] values = {1f, -2.5f, 1e-3f, 3.14159f, 65504f, 0.1f};
        float third = (float) (1.0 / 3);
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT16, DType.BFLOAT16}) {
            double[] input = new double[values.length];
            for (int i = 0; i < values.length; i++) {
                input[i] = values[i];
            }
            Tensor buffer = Tensor.fromDoubles(dtype, input);
            try {
                double[] stored = buffer.toDoubleArray();
                double[] got = runHook(3, buffer, new ArrayList<>()).toDoubleArray();
                for (int i = 0; i < values.length; i++) {
                    float scaled = (float) stored[i] * third;
                    double want = dtype == DType.FLOAT32 ? scaled
                            : dtype == DType.FLOAT16 ? HalfFloats.halfToFloat(HalfFloats.floatToHalf(scaled))
                            : HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(scaled));
                    assertEquals(want, got[i], dtype + " element " + i);
                }
            } finally {
                buffer.release();
            }
        }
    }

    @Test
    void aWorldOfOneLeavesTheBucketAsItIs() {
        double[] values = {1.0 / 3, 0.1};
        Tensor buffer = Tensor.fromDoubles(values);
        try {
            assertEquals(List.of(1.0 / 3, 0.1), boxed(runHook(1, buffer, new ArrayList<>()).toDoubleArray()));
        } finally {
            buffer.release();
        }
    }

    @Test
    void scalingAllocatesNoArrayPerStep() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int n = 1 << 20;  // 4 MiB of FLOAT32: a per-step float[] copy would allocate as much
        Tensor buffer = Tensor.zeros(DType.FLOAT32, n);
        Parameter p = new Parameter("p", Tensor.zeros(DType.FLOAT32, n), Tensor.zeros(DType.FLOAT32, n));
        try {
            GradBucket bucket = new GradBucket(0, 1, buffer, List.of(p));
            AllReduceHook hook = new AllReduceHook(group(4, new ArrayList<>()));
            for (int i = 0; i < 3; i++) {
                hook.runHook(bucket).block(WAIT);  // warm-up: this thread's scratch blocks are made once
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 10; i++) {
                hook.runHook(bucket).block(WAIT);
            }
            long perStep = (threads.getThreadAllocatedBytes(id) - before) / 10;
            assertTrue(perStep < 64 * 1024, "bytes allocated per step: " + perStep);
        } finally {
            buffer.release();
            p.value().release();
            p.grad().release();
        }
    }

    private static List<Double> boxed(double[] a) {
        List<Double> l = new ArrayList<>();
        for (double d : a) {
            l.add(d);
        }
        return l;
    }
}
