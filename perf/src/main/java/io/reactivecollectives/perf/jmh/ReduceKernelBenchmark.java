package io.reactivecollectives.perf.jmh;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * In-place reduction {@code dst = op(dst, src)} of two off-heap tensors of {@code bytes} bytes, as
 * a collective's reduce step runs it: {@link ReduceKernels#reduceInto(ReduceOp, Tensor, Tensor)}.
 *
 * <p>Besides the time per call, the {@code gbps} counter reports the vector bytes reduced per
 * second, in GB/s (10^9 bytes), the figure numpy's {@code np.add(a, b, out=a)} is compared with
 * (perf/scripts/numpy_add_bench.py). Run with {@code -prof gc} to see the allocation per call
 * ({@code gc.alloc.rate.norm}), which is 0.
 *
 * <pre>
 * java -jar perf/target/perf-*-jmh.jar ReduceKernelBenchmark -p dtype=FLOAT32 -p op=SUM -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:MaxDirectMemorySize=1g"})
public class ReduceKernelBenchmark {

    /** Element type. */
    @Param({"FLOAT32", "FLOAT64", "BFLOAT16", "FLOAT16", "INT32", "INT64", "UINT8"})
    public String dtype;

    /** Reduce op, as {@link ReduceOp#parse} reads it. */
    @Param({"SUM", "MAX"})
    public String op;

    /** Bytes per tensor (the vector reduced). */
    @Param({"67108864"})
    public int bytes;

    private ReduceOp reduceOp;
    private Tensor dst;
    private Tensor src;

    /** Reduction rate: {@code gbps} = 10^9 vector bytes reduced per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rate {
        /** Vector gigabytes (10^9 bytes) reduced; reported per second. */
        public double gbps;

        @Setup(Level.Iteration)
        public void reset() {
            gbps = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        DType dt = DType.parse(dtype);
        reduceOp = ReduceOp.parse(op);
        reduceOp.validate("benchmark", dt);
        long n = bytes / dt.byteSize();
        dst = Tensor.zeros(dt, n);
        src = Tensor.zeros(dt, n);
        // values that stay finite and small however many times SUM is applied in place
        SplittableRandom rnd = new SplittableRandom(42);
        double[] chunk = new double[4096];
        for (long off = 0; off < n; off += chunk.length) {
            int m = (int) Math.min(chunk.length, n - off);
            for (int i = 0; i < m; i++) {
                chunk[i] = dt.isFloatingPoint() ? rnd.nextDouble() : rnd.nextInt(100);
            }
            Tensor d = dst.narrow(off, m);
            for (int i = 0; i < m; i++) {
                d.setDouble(i, chunk[i]);
            }
        }
        src.fill(dt.isFloatingPoint() ? 1e-6 : 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        dst.release();
        src.release();
    }

    @Benchmark
    public void reduceInto(Rate rate) {
        ReduceKernels.reduceInto(reduceOp, dst, src);
        rate.gbps += bytes * 1e-9;
    }
}
