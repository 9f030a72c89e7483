package io.reactivecollectives.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** 64 MiB float32 SUM all-reduce (ring) on 2 and 3 ranks, every element checked. */
class LargeAllReduceTest {

    static final int N = 16 * 1024 * 1024; // 64 MiB of float32

    static float value(int i, int r) {
        return ((i * 7 + r * 13) % 17) - 8;
    }

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {2, 3})
    void sixtyFourMiB(int world) {
        ClusterTesting.withCluster(world, GroupOptions.defaults().withGroupId("large"), cluster -> {
            List<Tensor> ts = new ArrayList<>();
            try {
                for (int r = 0; r < world; r++) {
                    ByteBuf heap = Unpooled.buffer(N * 4, N * 4);
                    FloatBuffer fb = heap.internalNioBuffer(0, N * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
                    for (int i = 0; i < N; i++) {
                        fb.put(i, value(i, r));
                    }
                    heap.writerIndex(N * 4);
                    Tensor t = Tensor.empty(DType.FLOAT32, N);
                    t.buffer().setBytes(0, heap, 0, N * 4);
                    ts.add(t);
                }
                StepVerifier.create(cluster.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM)))
                        .expectNextCount(1)
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
                for (int r = 0; r < world; r++) {
                    byte[] bytes = ts.get(r).toByteArray();
                    FloatBuffer got = java.nio.ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
                    for (int i = 0; i < N; i++) {
                        float want = 0;
                        for (int q = 0; q < world; q++) {
                            want += value(i, q);
                        }
                        if (got.get(i) != want) {
                            assertEquals(want, got.get(i), "rank " + r + " element " + i);
                        }
                    }
                }
            } finally {
                ClusterTesting.releaseAll(ts);
            }
            return null;
        });
    }
}
