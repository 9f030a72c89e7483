package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GradBucketTest {

    private static Parameter param(String name, long... shape) {
        return new Parameter(name, Tensor.zeros(DType.FLOAT32, shape), Tensor.zeros(DType.FLOAT32, shape));
    }

    private static void release(Parameter... ps) {
        for (Parameter p : ps) {
            p.value().release();
            p.grad().release();
        }
    }

    @Test
    void denseBucketLaysParametersOutInOrder() {
        Parameter w = param("w", 2, 3);
        Parameter b = param("b", 3);
        Tensor buf = Tensor.fromFloats(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
        try {
            GradBucket g = new GradBucket(1, 2, buf, List.of(w, b));
            assertTrue(g.isLast());
            assertFalse(g.isSparse());
            assertArrayEquals(new long[] {0, 6}, g.offsets());
            assertArrayEquals(new long[] {6, 3}, g.lengths());
            assertArrayEquals(new long[] {2, 3}, g.shapes().get(0));
            List<Tensor> grads = g.gradients();
            assertArrayEquals(new long[] {2, 3}, grads.get(0).shape());
            assertArrayEquals(new float[] {7, 8, 9}, grads.get(1).toFloatArray());
            assertNull(g.sparseIndices(0));
            assertFalse(new GradBucket(0, 2, buf, List.of(w, b)).isLast());
            assertThrows(IllegalArgumentException.class, () -> new GradBucket(0, 1, buf, List.of(w)));
            assertThrows(IllegalArgumentException.class, () -> new GradBucket(2, 2, buf, List.of(w, b)));
        } finally {
            buf.release();
            release(w, b);
        }
    }

    @Test
    void sparseBucketDensifiesAddingRepeatedRows() {
        Parameter emb = param("emb", 4, 2);
        Tensor values = Tensor.fromFloats(new float[] {1, 2, 10, 20, 100, 200});
        Tensor idx = Tensor.fromLongs(new long[] {3, 0, 3});
        try {
            GradBucket g = GradBucket.sparse(0, 1, emb, values, idx);
            assertTrue(g.isSparse());
            assertArrayEquals(new long[] {3, 2}, g.gradients().get(0).shape());
            Tensor dense = g.toDense();
            try {
                assertArrayEquals(new float[] {10, 20, 0, 0, 0, 0, 101, 202}, dense.toFloatArray());
            } finally {
                dense.release();
            }
            assertEquals(idx, g.sparseIndices(0));
            Tensor bad = Tensor.fromLongs(new long[] {1, 2});
            try {
                assertThrows(IllegalArgumentException.class, () -> GradBucket.sparse(0, 1, emb, values, bad));
            } finally {
                bad.release();
            }
        } finally {
            values.release();
            idx.release();
            release(emb);
        }
    }
}
