package io.reactivecollectives.samples.interop;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Tensors;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DJL NDArrays (PyTorch engine, CPU, from the native jar on the class path: no download) all-reduced
 * in place on a 2-rank {@link LocalCluster}: {@code toByteBuffer(true)} is a direct view of the
 * PyTorch tensor's storage, so the NDArrays hold the sums afterwards.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DjlAllReduceTest {

    private static final int WORLD = 2;
    private static final int N = 3_000;

    static {
        System.setProperty("ai.djl.offline", "true");
    }

    @Test
    void allReduceOfPyTorchArraysThroughTheirDirectBuffers() {
        float[] base = new float[N];
        for (int i = 0; i < N; i++) {
            base[i] = i * 0.5f;
        }
        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
            List<NDArray> arrays = new ArrayList<>();
            List<Tensor> tensors = new ArrayList<>();
            for (int r = 0; r < WORLD; r++) {
                NDArray a = manager.create(base, new Shape(N / 100, 100)).mul(r + 1);
                arrays.add(a);
                ByteBuffer storage = a.toByteBuffer(true);
                assertTrue(storage.isDirect(), "PyTorch's CPU storage seen as a direct buffer");
                tensors.add(Tensors.wrap(storage.order(ByteOrder.LITTLE_ENDIAN), DType.FLOAT32, N / 100, 100));
            }
            LocalCluster cluster = LocalCluster.start(WORLD).block(Duration.ofSeconds(30));
            try {
                cluster.run(g -> g.allReduce(tensors.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
            } finally {
                cluster.close();
                tensors.forEach(Tensor::release);
            }
            float[] expected = new float[N];
            for (int i = 0; i < N; i++) {
                expected[i] = 3 * base[i];
            }
            for (NDArray a : arrays) {
                assertArrayEquals(expected, a.toFloatArray(), 1e-3f);
            }
        }
    }
}
