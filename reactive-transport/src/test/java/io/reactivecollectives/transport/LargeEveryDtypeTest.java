package io.reactivecollectives.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.HalfFloats;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 64 MiB of every dtype through the large-message paths on 2 ranks: all-reduce (SUM, the ring),
 * reduce (MAX, the segmented tree), broadcast (the pipelined chain) and send/recv, each result
 * compared byte for byte with the reduction kernels applied to copies of the inputs (the kernels
 * are checked element by element in reactive-core's ReduceKernelsTest).
 */
class LargeEveryDtypeTest {

    private static final int BYTES = 64 << 20;

    /** A tensor of 64 MiB of small integral values (exact in every dtype, also summed). */
    private static Tensor tensor(DType dtype, long seed) {
        int n = BYTES / dtype.byteSize();
        ByteBuf heap = Unpooled.buffer(BYTES, BYTES);
        ByteBuffer b = heap.internalNioBuffer(0, BYTES).order(ByteOrder.LITTLE_ENDIAN);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            int v = dtype == DType.BOOL ? rnd.nextInt(2) : dtype == DType.UINT8 ? rnd.nextInt(100) : rnd.nextInt(-50, 50);
            switch (dtype) {
                case BOOL, UINT8, INT8 -> b.put(i, (byte) v);
                case INT32 -> b.putInt(4 * i, v);
                case INT64 -> b.putLong(8 * i, v);
                case FLOAT16 -> b.putShort(2 * i, HalfFloats.floatToHalf(v));
                case BFLOAT16 -> b.putShort(2 * i, HalfFloats.floatToBfloat16(v));
                case FLOAT32 -> b.putFloat(4 * i, v);
                case FLOAT64 -> b.putDouble(8 * i, v);
                default -> throw new AssertionError(dtype);
            }
        }
        heap.writerIndex(BYTES);
        Tensor t = Tensor.empty(dtype, n);
        t.buffer().setBytes(0, heap, 0, BYTES);
        heap.release();
        return t;
    }

    /** Compares the buffers where they lie; copies them to arrays only to say where they differ. */
    private static void assertSameBytes(Tensor want, Tensor got, String what) {
        // one NIO view each (an access through the leak-aware ByteBuf records a trace per call)
        if (want.nbytes() != got.nbytes() || want.buffer().nioBuffer(0, (int) want.nbytes())
                .mismatch(got.buffer().nioBuffer(0, (int) got.nbytes())) >= 0) {
            assertArrayEquals(want.toByteArray(), got.toByteArray(), what);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(DType.class)
    void sixtyFourMiBOfEveryDtype(DType dtype) {
        ClusterTesting.withCluster(2, GroupOptions.defaults().withGroupId("large-" + dtype), cluster -> {
            List<Tensor> owned = new ArrayList<>();
            try {
                Tensor a0 = tensor(dtype, 1);
                Tensor a1 = tensor(dtype, 2);
                owned.addAll(List.of(a0, a1));
                Tensor sum = a0.copy();
                Tensor max = a0.copy();
                owned.addAll(List.of(sum, max));
                ReduceKernels.reduceInto(ReduceOp.SUM, sum, a1);   // SUM on BOOL is logical OR, as c10d
                ReduceKernels.reduceInto(ReduceOp.MAX, max, a1);

                // all-reduce SUM (ring at 64 MiB)
                List<Tensor> ar = List.of(a0.copy(), a1.copy());
                owned.addAll(ar);
                StepVerifier.create(cluster.run(g -> g.allReduce(ar.get(g.rank()), ReduceOp.SUM)))
                        .expectNextCount(1).expectComplete().verify(ClusterTesting.TIMEOUT);
                assertSameBytes(sum, ar.get(0), dtype + " allReduce rank 0");
                assertSameBytes(sum, ar.get(1), dtype + " allReduce rank 1");

                // reduce MAX to rank 1 (segmented binomial tree)
                List<Tensor> rd = List.of(a0.copy(), a1.copy());
                owned.addAll(rd);
                StepVerifier.create(cluster.run(g -> g.reduce(rd.get(g.rank()), 1, ReduceOp.MAX, CollectiveOptions.DEFAULT)))
                        .expectNextCount(1).expectComplete().verify(ClusterTesting.TIMEOUT);
                assertSameBytes(max, rd.get(1), dtype + " reduce at the root");

                // broadcast from rank 1 (pipelined chain at 64 MiB)
                List<Tensor> bc = List.of(a0.copy(), a1.copy());
                owned.addAll(bc);
                StepVerifier.create(cluster.run(g -> g.broadcast(bc.get(g.rank()), 1)))
                        .expectNextCount(1).expectComplete().verify(ClusterTesting.TIMEOUT);
                assertSameBytes(a1, bc.get(0), dtype + " broadcast");

                // send/recv rank 0 -> rank 1
                Tensor into = Tensor.zerosLike(a0);
                owned.add(into);
                StepVerifier.create(Mono.when(cluster.group(0).send(a0, 1, 5), cluster.group(1).recv(into, 0, 5)))
                        .expectComplete().verify(ClusterTesting.TIMEOUT);
                assertSameBytes(a0, into, dtype + " send/recv");
                assertTrue(into.refCnt() > 0);
            } finally {
                ClusterTesting.releaseAll(owned);
            }
            return null;
        });
    }
}
