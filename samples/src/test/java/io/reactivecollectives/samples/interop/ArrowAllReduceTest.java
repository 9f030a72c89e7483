package io.reactivecollectives.samples.interop;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Tensors;
import io.reactivecollectives.transport.LocalCluster;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Apache Arrow vectors all-reduced in place: each rank's tensor is the vector's own data buffer
 * (its {@code memoryAddress()}, or its {@code nioBuffer}), so after a 2-rank all-reduce the Arrow
 * vectors hold the sums with no copy in or out. The tensor holds a reference of the
 * {@link ArrowBuf} and gives it back in its release callback, so Arrow's allocator, which checks
 * for leaks when closed, sees every buffer returned.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArrowAllReduceTest {

    private static final int WORLD = 2;
    private static final int N = 5_000;

    private BufferAllocator allocator;
    private LocalCluster cluster;

    @BeforeEach
    void start() {
        allocator = new RootAllocator();
        cluster = LocalCluster.start(WORLD).block(Duration.ofSeconds(30));
    }

    @AfterEach
    void stop() {
        cluster.close();
        allocator.close(); // throws if an ArrowBuf was not returned
    }

    /** The first {@code bytes} of a vector's data buffer as a tensor; the buffer is held until the tensor is released. */
    private static Tensor tensorOf(ArrowBuf data, long bytes, DType dtype) {
        data.getReferenceManager().retain();
        return Tensors.wrapAddress(data.memoryAddress(), bytes, dtype, () -> data.getReferenceManager().release());
    }

    @Test
    void allReduceOfFloat4VectorsByAddress() {
        List<Float4Vector> vectors = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        try {
            for (int r = 0; r < WORLD; r++) {
                Float4Vector v = new Float4Vector("grad" + r, allocator);
                v.allocateNew(N);
                for (int i = 0; i < N; i++) {
                    v.set(i, (r + 1) * 0.5f * i);
                }
                v.setValueCount(N);
                vectors.add(v);
                tensors.add(tensorOf(v.getDataBuffer(), (long) N * Float4Vector.TYPE_WIDTH, DType.FLOAT32));
            }
            cluster.run(g -> g.allReduce(tensors.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
            for (Float4Vector v : vectors) {
                for (int i = 0; i < N; i++) {
                    assertEquals(1.5f * i, v.get(i), 1e-3f * i, v.getName() + "[" + i + "]");
                }
            }
        } finally {
            tensors.forEach(Tensor::release);
            vectors.forEach(Float4Vector::close);
        }
    }

    @Test
    void allReduceOfBigIntVectorsThroughTheirNioBuffers() {
        List<BigIntVector> vectors = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        try {
            for (int r = 0; r < WORLD; r++) {
                BigIntVector v = new BigIntVector("counts" + r, allocator);
                v.allocateNew(N);
                for (int i = 0; i < N; i++) {
                    v.set(i, (r + 1) * (1L << 40) + i);
                }
                v.setValueCount(N);
                vectors.add(v);
                ArrowBuf data = v.getDataBuffer();
                // ArrowBuf.nioBuffer is a direct view of the same memory
                tensors.add(Tensors.wrap(data.nioBuffer(0, N * BigIntVector.TYPE_WIDTH).order(ByteOrder.LITTLE_ENDIAN),
                        DType.INT64));
            }
            cluster.run(g -> g.allReduce(tensors.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
            for (BigIntVector v : vectors) {
                for (int i = 0; i < N; i++) {
                    assertEquals(3 * (1L << 40) + 2L * i, v.get(i), v.getName() + "[" + i + "]");
                }
            }
        } finally {
            tensors.forEach(Tensor::release);
            vectors.forEach(BigIntVector::close);
        }
    }
}
