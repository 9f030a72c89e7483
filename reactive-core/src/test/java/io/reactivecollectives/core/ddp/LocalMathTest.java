package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The single-process pieces of the hooks: Gram-Schmidt, 16-bit conversion, coalescing partition. */
class LocalMathTest {

    @Test
    void orthogonalizeGivesOrthonormalColumnsAndKeepsZeroColumnsZero() {
        int n = 7;
        int r = 3;
        float[] a = new float[n * r];
        Random rnd = new Random(1);
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) rnd.nextGaussian();
        }
        PowerSgdHook.orthogonalize(a, 0, n, r, 0);
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < r; j++) {
                double dot = 0;
                for (int k = 0; k < n; k++) {
                    dot += a[k * r + i] * a[k * r + j];
                }
                assertEquals(i == j ? 1.0 : 0.0, dot, 1e-5, "column " + i + " . column " + j);
            }
        }
        float[] z = new float[4];
        PowerSgdHook.orthogonalize(z, 0, 4, 1, 0);
        assertArrayEquals(new float[4], z);
    }

    @Test
    void halfPrecisionConversionRoundTripsWithinItsPrecision() {
        Tensor src = Tensor.fromFloats(new float[] {1f, -2.5f, 1e-3f, 3.14159f, 65504f});
        Tensor half = FloatOps.convert(src, DType.FLOAT16, 0.5);
        Tensor bf = FloatOps.convert(src, DType.BFLOAT16, 1.0);
        Tensor back = Tensor.zeros(DType.FLOAT32, 5);
        try {
            assertEquals(DType.FLOAT16, half.dtype());
            FloatOps.copyConverting(back, half);
            float[] h = back.toFloatArray();
            float[] s = src.toFloatArray();
            for (int i = 0; i < s.length; i++) {
                assertEquals(s[i] * 0.5f, h[i], Math.abs(s[i]) * 1e-3, "fp16 element " + i);
            }
            FloatOps.copyConverting(back, bf);
            float[] b = back.toFloatArray();
            for (int i = 0; i < s.length; i++) {
                assertEquals(s[i], b[i], Math.abs(s[i]) * 8e-3, "bf16 element " + i);
            }
        } finally {
            src.release();
            half.release();
            bf.release();
            back.release();
        }
    }

    @Test
    void coalescingSplitsByDtypeAndSize() {
        Tensor a = Tensor.zeros(DType.FLOAT32, 4);   // 16 bytes
        Tensor b = Tensor.zeros(DType.FLOAT32, 4);   // 16
        Tensor c = Tensor.zeros(DType.FLOAT32, 20);  // 80, over the limit alone
        Tensor d = Tensor.zeros(DType.INT64, 1);     // 8, other dtype
        Tensor e = Tensor.zeros(DType.INT64, 1);
        try {
            List<List<Tensor>> p = BroadcastCoalesced.partition(List.of(a, b, c, d, e), 32);
            assertEquals(List.of(List.of(a, b), List.of(c), List.of(d, e)), p);
        } finally {
            for (Tensor t : List.of(a, b, c, d, e)) {
                t.release();
            }
        }
    }
}
