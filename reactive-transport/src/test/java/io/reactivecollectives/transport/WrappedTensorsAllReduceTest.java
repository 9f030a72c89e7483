package io.reactivecollectives.transport;

import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Tensors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Collectives on memory the caller already had ({@link Tensors}): a 2-rank all-reduce over wrapped
 * direct buffers and native addresses leaves the sum in the caller's own buffers, and a read-only
 * wrapped buffer is refused by the collectives that would write into it, before anything is sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WrappedTensorsAllReduceTest {

    private static final int WORLD = 2;
    private static final int N = 10_000; // several ring chunks
    private LocalCluster cluster;

    @BeforeEach
    void start() {
        cluster = LocalCluster.start(WORLD).block(Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static ByteBuffer floats(int rank) {
        ByteBuffer b = ByteBuffer.allocateDirect(4 * N).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < N; i++) {
            b.putFloat(i * 4, (rank + 1) * i);
        }
        return b;
    }

    private static void assertSums(ByteBuffer b) {
        for (int i = 0; i < N; i++) {
            assertEquals(3f * i, b.getFloat(i * 4), "element " + i);
        }
    }

    @Test
    void allReduceOfWrappedByteBuffersLandsInTheCallersBuffers() {
        List<ByteBuffer> mine = List.of(floats(0), floats(1));
        List<Tensor> ts = new ArrayList<>();
        for (ByteBuffer b : mine) {
            ts.add(Tensors.wrap(b, DType.FLOAT32, 100, 100));
        }
        cluster.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
        ts.forEach(Tensor::release);
        mine.forEach(WrappedTensorsAllReduceTest::assertSums);
    }

    @Test
    void allReduceOfTypedViewsAndAddressesReleasesEachOnce() {
        ByteBuffer a = floats(0);
        FloatBuffer view = a.asFloatBuffer();
        ByteBuffer b = floats(1); // stands for memory another library owns, known by its address
        AtomicInteger released = new AtomicInteger();
        List<Tensor> ts = List.of(
                Tensors.wrap(view, DType.FLOAT32, released::incrementAndGet),
                Tensors.wrapAddress(PlatformDependent.directBufferAddress(b), 4L * N, DType.FLOAT32,
                        released::incrementAndGet));
        cluster.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
        assertEquals(0, released.get(), "the collective released nothing it did not retain");
        ts.forEach(Tensor::release);
        assertEquals(2, released.get());
        assertSums(a);
        assertSums(b);
    }

    @Test
    void readOnlyBuffersAreRefusedWhereTheCollectiveWrites() {
        Tensor t = Tensors.wrap(floats(0).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), DType.FLOAT32);
        try {
            Throwable e = assertThrows(RuntimeException.class,
                    () -> cluster.group(0).allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(30)));
            Throwable cause = e instanceof IllegalArgumentException ? e : e.getCause();
            assertInstanceOf(IllegalArgumentException.class, cause, e.toString());
            assertTrue(cause.getMessage().contains("allReduce: tensor is read-only"), cause.getMessage());
            assertEquals(5f, t.buffer().getFloatLE(20), "nothing written");
        } finally {
            t.release();
        }
    }

    @Test
    void readOnlyOutputsAreRefusedByAllGatherIntoAndRecv() {
        List<Tensor> inputs = new ArrayList<>();
        List<Tensor> outputs = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            inputs.add(Tensor.zeros(DType.FLOAT32, 4));
            outputs.add(Tensors.wrap(ByteBuffer.allocateDirect(16 * WORLD).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN),
                    DType.FLOAT32));
        }
        try {
            Throwable e = assertThrows(RuntimeException.class, () -> cluster.run(
                    g -> g.allGatherInto(outputs.get(g.rank()), inputs.get(g.rank()))).block(Duration.ofSeconds(30)));
            assertTrue(messages(e).contains("output is read-only"), messages(e));
            e = assertThrows(RuntimeException.class,
                    () -> cluster.group(1).recv(outputs.get(1), 0, 7).block(Duration.ofSeconds(30)));
            assertTrue(messages(e).contains("tensor is read-only"), messages(e));
        } finally {
            inputs.forEach(Tensor::release);
            outputs.forEach(Tensor::release);
        }
    }

    @Test
    void recvAnySourceRefusesAReadOnlyTensorBeforeTakingAMessage() {
        Tensor readOnly = Tensors.wrap(ByteBuffer.allocateDirect(16).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN),
                DType.FLOAT32);
        Tensor sent = Tensor.fromFloats(new float[] {1, 2, 3, 4});
        Tensor writable = Tensor.zeros(DType.FLOAT32, 4);
        try {
            cluster.group(0).send(sent, 1, 8).block(Duration.ofSeconds(30));
            Throwable e = assertThrows(IllegalArgumentException.class,
                    () -> cluster.group(1).recvAnySource(readOnly, 8).block(Duration.ofSeconds(30)));
            assertTrue(e.getMessage().startsWith("recvAnySource: tensor is read-only"), e.getMessage());
            // the message was not taken (nor lost) by the refused call: the next receive gets it
            assertEquals(0, cluster.group(1).recvAnySource(writable, 8).block(Duration.ofSeconds(30)));
            assertEquals(4.0f, writable.toFloatArray()[3]);
        } finally {
            readOnly.release();
            sent.release();
            writable.release();
        }
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append(" / ");
        }
        return b.toString();
    }

    @Test
    void aReadOnlyBufferCanBeABroadcastsRoot() {
        Tensor t = Tensors.wrap(floats(0).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), DType.FLOAT32);
        try {
            // a broadcast's root only reads: its read-only tensor is sent to the others
            Tensor out = Tensor.zeros(DType.FLOAT32, N);
            List<Tensor> ts = List.of(t, out);
            cluster.run(g -> g.broadcast(ts.get(g.rank()), 0)).block(Duration.ofSeconds(30));
            assertEquals(N - 1.0, out.getDouble(N - 1));
            out.release();
        } finally {
            t.release();
        }
    }
}
