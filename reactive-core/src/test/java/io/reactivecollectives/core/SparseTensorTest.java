package io.reactivecollectives.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SparseTensorTest {

    @Test
    void coalesceSortsAndSumsDuplicates() {
        // 1-D dense shape [6]: entries at 3, 0, 3, 5, 0
        SparseTensor s = SparseTensor.of(Tensor.fromLongs(new long[] {3, 0, 3, 5, 0}, 1, 5),
                Tensor.fromFloats(new float[] {1f, 2f, 10f, 4f, 0.5f}), 6);
        SparseTensor c = s.coalesce();
        try {
            assertFalse(s.isCoalesced());
            assertTrue(c.isCoalesced());
            assertArrayEquals(new long[] {0, 3, 5}, c.indices().toLongArray());
            assertArrayEquals(new float[] {2.5f, 11f, 4f}, c.values().toFloatArray());
            assertArrayEquals(new long[] {6}, c.denseShape());
        } finally {
            s.release();
            c.release();
        }
    }

    @Test
    void coalescingSortedRowsWithoutRepeatsCopiesThem() {
        SparseTensor s = SparseTensor.of(Tensor.fromLongs(new long[] {0, 2, 5}, 1, 3),
                Tensor.fromFloats(new float[] {1f, -0f, 7f, 8f, Float.NaN, 3f}, 3, 2), 6, 2);
        SparseTensor c = s.coalesce();
        try {
            assertTrue(c.isCoalesced());
            assertTrue(c.contentEquals(s), "the same entries, bit for bit");
            c.values().setDouble(0, 42);   // a copy: the original is left as it was
            assertEquals(1.0, s.values().getDouble(0));
        } finally {
            s.release();
            c.release();
        }
    }

    @Test
    void coalesceOfTwoSparseDimsIsRowMajor() {
        // dense [3, 4]: (2,1) (0,3) (2,1) (0,0)
        SparseTensor s = SparseTensor.of(Tensor.fromLongs(new long[] {2, 0, 2, 0, 1, 3, 1, 0}, 2, 4),
                Tensor.fromLongs(new long[] {5, 6, 7, 8}), 3, 4);
        SparseTensor c = s.coalesce();
        try {
            assertArrayEquals(new long[] {0, 0, 2, 0, 3, 1}, c.indices().toLongArray());
            assertArrayEquals(new long[] {8, 6, 12}, c.values().toLongArray());
        } finally {
            s.release();
            c.release();
        }
    }

    @Test
    void hybridValuesAddRowByRow() {
        // dense [4, 2], one sparse dim: values are rows of 2
        SparseTensor s = SparseTensor.of(Tensor.fromLongs(new long[] {1, 3, 1}, 1, 3),
                Tensor.fromDoubles(new double[] {1, 2, 3, 4, 10, 20}, 3, 2), 4, 2);
        SparseTensor c = s.coalesce();
        Tensor dense = s.toDense();
        try {
            assertEquals(1, s.sparseDim());
            assertEquals(1, s.denseDim());
            assertArrayEquals(new long[] {1, 3}, c.indices().toLongArray());
            assertArrayEquals(new double[] {11, 22, 3, 4}, c.values().toDoubleArray());
            assertArrayEquals(new double[] {0, 0, 11, 22, 0, 0, 3, 4}, dense.toDoubleArray());
        } finally {
            s.release();
            c.release();
            dense.release();
        }
    }

    @Test
    void sumMatchesDenseSumForRandomInputs() {
        Random rnd = new Random(7);
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.INT8, DType.BOOL}) {
            List<SparseTensor> parts = new ArrayList<>();
            try {
                for (int p = 0; p < 4; p++) {
                    int nnz = rnd.nextInt(8);
                    long[] idx = new long[2 * nnz];
                    for (int k = 0; k < nnz; k++) {
                        idx[k] = rnd.nextInt(3);
                        idx[nnz + k] = rnd.nextInt(5);
                    }
                    double[] vals = new double[nnz];
                    for (int k = 0; k < nnz; k++) {
                        vals[k] = dtype.isBool() ? rnd.nextInt(2) : rnd.nextInt(17) - 8;
                    }
                    parts.add(SparseTensor.of(Tensor.fromLongs(idx, 2, nnz), Tensor.fromDoubles(dtype, vals, nnz), 3, 5));
                }
                SparseTensor sum = SparseTensor.sum(parts);
                Tensor got = sum.toDense();
                double[] want = new double[15];
                for (SparseTensor p : parts) {
                    Tensor d = p.toDense();
                    double[] dv = d.toDoubleArray();
                    for (int i = 0; i < 15; i++) {
                        want[i] = dtype.isBool() ? ((want[i] != 0 || dv[i] != 0) ? 1 : 0) : want[i] + dv[i];
                    }
                    d.release();
                }
                try {
                    assertArrayEquals(want, got.toDoubleArray(), dtype.toString());
                    long[] ix = sum.indices().toLongArray();
                    long n = sum.nnz();
                    for (int k = 1; k < n; k++) {
                        long a = ix[k - 1] * 5 + ix[(int) n + k - 1];
                        long b = ix[k] * 5 + ix[(int) n + k];
                        assertTrue(a < b, "sorted and unique");
                    }
                } finally {
                    sum.release();
                    got.release();
                }
            } finally {
                parts.forEach(SparseTensor::release);
            }
        }
    }

    @Test
    void integerSumsWrapAround() {
        SparseTensor s = SparseTensor.of(Tensor.fromLongs(new long[] {0, 0}, 1, 2),
                Tensor.fromBytes(DType.INT8, new byte[] {100, 100}), 1);
        SparseTensor c = s.coalesce();
        try {
            assertEquals((byte) 200, c.values().toByteArray()[0]);
        } finally {
            s.release();
            c.release();
        }
    }

    @Test
    void emptyAndFromDense() {
        SparseTensor e = SparseTensor.empty(DType.FLOAT32, 1, 4, 3);
        Tensor dense = Tensor.fromFloats(new float[] {0, 1.5f, 0, 0, -2f, 0}, 2, 3);
        SparseTensor fd = SparseTensor.fromDense(dense);
        Tensor back = fd.toDense();
        Tensor ed = e.toDense();
        try {
            assertEquals(0, e.nnz());
            assertArrayEquals(new long[] {0, 3}, e.values().shape());
            assertEquals(12, ed.numel());
            assertArrayEquals(new double[12], ed.toDoubleArray());
            assertEquals(2, fd.nnz());
            assertArrayEquals(new long[] {0, 1, 1, 1}, fd.indices().toLongArray());
            assertTrue(back.contentEquals(dense));
            SparseTensor copy = fd.copy();
            assertTrue(copy.contentEquals(fd));
            copy.release();
        } finally {
            e.release();
            dense.release();
            fd.release();
            back.release();
            ed.release();
        }
    }

    @Test
    void badPartsAreRejectedAndReleased() {
        Tensor idx = Tensor.fromLongs(new long[] {0, 7}, 1, 2);
        Tensor val = Tensor.fromFloats(new float[] {1, 2});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SparseTensor.of(idx, val, 5));
        assertTrue(e.getMessage().contains("out of range"), e.getMessage());
        assertEquals(0, idx.refCnt());
        assertEquals(0, val.refCnt());

        Tensor idx2 = Tensor.fromInts(new int[] {0}, 1, 1);
        Tensor val2 = Tensor.fromFloats(new float[] {1});
        e = assertThrows(IllegalArgumentException.class, () -> SparseTensor.of(idx2, val2, 5));
        assertTrue(e.getMessage().contains("int64"), e.getMessage());

        Tensor idx3 = Tensor.fromLongs(new long[] {0, 1}, 1, 2);
        Tensor val3 = Tensor.fromFloats(new float[] {1, 2, 3});
        e = assertThrows(IllegalArgumentException.class, () -> SparseTensor.of(idx3, val3, 5));
        assertTrue(e.getMessage().contains("shape"), e.getMessage());

        SparseTensor a = SparseTensor.empty(DType.FLOAT32, 1, 4);
        SparseTensor b = SparseTensor.empty(DType.FLOAT64, 1, 4);
        try {
            assertThrows(IllegalArgumentException.class, () -> SparseTensor.sum(List.of(a, b)));
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void releaseReleasesBothParts() {
        Tensor idx = Tensor.fromLongs(new long[] {0}, 1, 1);
        Tensor val = Tensor.fromFloats(new float[] {1});
        SparseTensor s = SparseTensor.of(idx, val, 2);
        s.retain();
        assertEquals(2, s.refCnt());
        s.release();
        assertTrue(s.release());
        assertEquals(0, idx.refCnt());
        assertEquals(0, val.refCnt());
    }
}
