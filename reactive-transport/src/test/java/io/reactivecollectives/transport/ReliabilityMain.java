package io.reactivecollectives.transport;

import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.FileStore;
import io.reactivecollectives.core.rendezvous.Store;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One rank in its own JVM for {@link ReliabilityProcessesTest}:
 * {@code ReliabilityMain <mode> <storeFile> <rank> <world>}. Lines it prints, which the test reads:
 * <ul>
 *   <li>{@code READY}, then {@code STARTED <n>} before its n-th all-reduce;</li>
 *   <li>{@code FAILED_AT <epochMillis> <message>} when a collective fails (modes kill, silent);</li>
 *   <li>{@code SHRUNK <newRank> <newSize> OK} after a correct all-reduce in the shrunk group;</li>
 *   <li>{@code MEM <phase> heap=<bytes> direct=<bytes> pooledDirect=<bytes>} and {@code SOAK OK} (mode soak).</li>
 * </ul>
 * Modes: {@code kill} (64 MiB all-reduces until one fails, then shrink and check a 1M-element
 * all-reduce among the survivors), {@code silent} (small all-reduces with 200 ms heartbeats x 5 until
 * one fails, then shrink), {@code teardown} (TEAR_DOWN mode: all-reduces until the process is torn
 * down), {@code soak} (10,000 all-reduces of 1 MiB, memory at start and end).
 */
public final class ReliabilityMain {

    public static void main(String[] args) {
        String mode = args[0];
        Path storeFile = Path.of(args[1]);
        int rank = Integer.parseInt(args[2]);
        int world = Integer.parseInt(args[3]);
        try (Store store = new FileStore(storeFile, Duration.ofSeconds(30))) {
            GroupOptions opts = GroupOptions.defaults().withGroupId("reliability-" + mode)
                    .withConnectTimeout(Duration.ofSeconds(30)).withTimeout(Duration.ofSeconds(60));
            if (mode.equals("silent")) {
                opts = opts.withHeartbeat(Duration.ofMillis(200), 5);
            }
            if (mode.equals("teardown")) {
                opts = opts.withErrorHandling(ErrorHandling.tearDown());
            }
            MeshProcessGroup g = MeshProcessGroup.connect(store, rank, world, opts).block(Duration.ofSeconds(40));
            System.out.println("READY via " + g.transportTo(rank == 0 ? 1 : 0));
            switch (mode) {
                case "kill" -> untilFailure(g, 16 * 1024 * 1024);
                case "silent" -> untilFailure(g, 1024);
                case "teardown" -> {
                    untilFailure(g, 1024);
                    Thread.sleep(30_000);
                    System.out.println("NOT TORN DOWN");
                    System.exit(1);
                }
                case "soak" -> soak(g);
                default -> throw new IllegalArgumentException(mode);
            }
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("RANK " + rank + " ERROR: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /** All-reduces of {@code n} float32 elements until one fails; then shrinks and checks an all-reduce. */
    private static void untilFailure(MeshProcessGroup g, int n) {
        Tensor t = Tensor.empty(DType.FLOAT32, n);
        try {
            for (int i = 1; ; i++) {
                System.out.println("STARTED " + i);
                try {
                    g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(120));
                } catch (RuntimeException e) {
                    System.out.println("FAILED_AT " + System.currentTimeMillis() + " " + e.getMessage());
                    break;
                }
            }
        } finally {
            t.release();
        }
        if (g.options().errorHandling().mode() == ErrorHandling.Mode.TEAR_DOWN) {
            return;
        }
        ProcessGroup s = g.shrink().block(Duration.ofSeconds(40));
        int m = 1 << 20;
        Tensor u = Tensor.empty(DType.FLOAT32, m);
        try {
            u.buffer().setBytes(0, floats(m, i -> (i % 11) + s.rank()));
            s.allReduce(u, ReduceOp.SUM).block(Duration.ofSeconds(60));
            int w = s.size();
            ByteBuffer out = ByteBuffer.allocate(m * 4).order(ByteOrder.LITTLE_ENDIAN);
            u.buffer().getBytes(0, out);
            out.flip();
            for (int i = 0; i < m; i++) {
                float want = w * (i % 11) + w * (w - 1) / 2f;
                if (out.getFloat(i * 4) != want) {
                    throw new AssertionError("shrunk all-reduce element " + i + " is " + out.getFloat(i * 4)
                            + ", want " + want);
                }
            }
        } finally {
            u.release();
        }
        System.out.println("SHRUNK " + s.rank() + " " + s.size() + " OK");
        s.close();
        leakCheck();
    }

    private static void soak(MeshProcessGroup g) {
        int n = 256 * 1024; // 1 MiB of float32
        int iterations = Integer.getInteger("rc.soak.iterations", 10_000);
        Tensor t = Tensor.empty(DType.FLOAT32, n);
        try {
            t.buffer().setBytes(0, floats(n, i -> 1f));
            for (int i = 0; i < 200; i++) {
                g.allReduce(t, ReduceOp.AVG).block(Duration.ofSeconds(60));
            }
            memory("start");
            long t0 = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                g.allReduce(t, ReduceOp.AVG).block(Duration.ofSeconds(60));
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            memory("end");
            System.out.println("SOAK " + iterations + " all-reduces of 1 MiB in " + ms + " ms");
            if (t.buffer().getFloatLE(4 * 1234) != 1f) {
                throw new AssertionError("soak result is " + t.buffer().getFloatLE(4 * 1234));
            }
        } finally {
            t.release();
        }
        g.close();
        System.out.println("SOAK OK");
    }

    private static void memory(String phase) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        long heap = rt.totalMemory() - rt.freeMemory();
        long direct = 0;
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                direct = b.getMemoryUsed();
            }
        }
        long pooled = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        System.out.println("MEM " + phase + " heap=" + heap + " direct=" + direct + " pooledDirect=" + pooled
                + " nettyDirectCounter=" + io.netty.util.internal.PlatformDependent.usedDirectMemory());
    }

    /** Lets the leak detector see unreachable buffers: any leak is logged as "LEAK:" (the test looks). */
    private static void leakCheck() {
        for (int i = 0; i < 5; i++) {
            System.gc();
            for (int k = 0; k < 64; k++) {
                PooledByteBufAllocator.DEFAULT.directBuffer(1024).release();
            }
        }
    }

    private interface FloatAt {
        float at(int i);
    }

    private static ByteBuffer floats(int n, FloatAt f) {
        ByteBuffer b = ByteBuffer.allocate(n * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat(f.at(i));
        }
        b.flip();
        return b;
    }
}
