package io.reactivecollectives.samples.interop;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Tensors;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.nd4j.linalg.api.buffer.DataBuffer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ND4J arrays (native CPU backend) all-reduced in place on a 2-rank {@link LocalCluster}: each rank's
 * tensor is the array's own off-heap data buffer, by {@code DataBuffer.address()} or as the direct
 * {@code ByteBuffer} of {@code DataBuffer.asNio()}, so the arrays hold the sums afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Nd4jAllReduceTest {

    private static final int WORLD = 2;
    private static final int ROWS = 50;
    private static final int COLS = 40;

    /** The elements of a (row-major, offset 0) array as a tensor of its shape, without copy. */
    private static Tensor byAddress(INDArray a, DType dtype, Runnable onRelease) {
        DataBuffer data = a.data();
        long bytes = a.length() * data.getElementSize();
        return Tensors.wrapAddress(data.address() + a.offset() * data.getElementSize(), bytes, dtype, onRelease,
                a.shape());
    }

    @Test
    void allReduceOfFloatArraysByAddress() {
        List<INDArray> arrays = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        AtomicInteger released = new AtomicInteger();
        for (int r = 0; r < WORLD; r++) {
            INDArray a = Nd4j.linspace(1, ROWS * COLS, ROWS * COLS, DataType.FLOAT).reshape('c', ROWS, COLS).muli(r + 1);
            arrays.add(a);
            // the tensor keeps no Java reference to `a`: the list does until the callback
            tensors.add(byAddress(a, DType.FLOAT32, released::incrementAndGet));
        }
        LocalCluster cluster = LocalCluster.start(WORLD).block(Duration.ofSeconds(30));
        try {
            cluster.run(g -> g.allReduce(tensors.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
        } finally {
            cluster.close();
            tensors.forEach(Tensor::release);
        }
        assertEquals(WORLD, released.get());
        INDArray expected = Nd4j.linspace(1, ROWS * COLS, ROWS * COLS, DataType.FLOAT).reshape('c', ROWS, COLS).muli(3);
        for (INDArray a : arrays) {
            assertEquals(expected, a);
            assertEquals(3f * ROWS * COLS, a.getFloat(ROWS - 1, COLS - 1));
        }
    }

    @Test
    void allReduceOfDoubleArraysThroughTheirNioBuffers() {
        List<INDArray> arrays = new ArrayList<>();
        List<Tensor> tensors = new ArrayList<>();
        for (int r = 0; r < WORLD; r++) {
            INDArray a = Nd4j.ones(DataType.DOUBLE, ROWS, COLS).muli(r + 0.25);
            arrays.add(a);
            ByteBuffer nio = a.data().asNio();
            assertTrue(nio.isDirect(), "ND4J's CPU buffers are off-heap");
            tensors.add(Tensors.wrap(nio.order(ByteOrder.LITTLE_ENDIAN), DType.FLOAT64, ROWS, COLS));
        }
        LocalCluster cluster = LocalCluster.start(WORLD).block(Duration.ofSeconds(30));
        try {
            cluster.run(g -> g.allReduce(tensors.get(g.rank()), ReduceOp.SUM)).block(Duration.ofSeconds(30));
        } finally {
            cluster.close();
            tensors.forEach(Tensor::release);
        }
        for (INDArray a : arrays) {
            assertEquals(Nd4j.ones(DataType.DOUBLE, ROWS, COLS).muli(1.5), a);
        }
    }
}
