package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built-in hooks on real ranks (LocalCluster over loopback). */
class CommHookClusterTest {

    /** Rank r's gradients for a bucket of a [rows x cols] weight and a [cols] bias. */
    static float[] gradients(int rank, int rows, int cols, long seed) {
        Random r = new Random(seed * 100 + rank);
        float[] g = new float[rows * cols + cols];
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) r.nextGaussian();
        }
        return g;
    }

    static float[] mean(List<float[]> perRank) {
        float[] m = new float[perRank.get(0).length];
        for (float[] g : perRank) {
            for (int i = 0; i < m.length; i++) {
                m[i] += g[i] / perRank.size();
            }
        }
        return m;
    }

    /**
     * Runs {@code hook} once per entry of {@code iterations} (each a function of the rank giving that
     * iteration's flat gradients) on a one-bucket [rows x cols] + [cols] model; emits each iteration's output.
     */
    static List<List<float[]>> runHook(int world, int rows, int cols, int iterations,
                                        Function<io.reactivecollectives.core.ProcessGroup, CommHook> hookOf,
                                        java.util.function.BiFunction<Integer, Integer, float[]> grads,
                                        java.util.function.BiConsumer<Integer, CommHook> after) {
        return ClusterFixture.onRanks(world, group -> {
            Parameter w = new Parameter("w", Tensor.zeros(DType.FLOAT32, rows, cols), Tensor.zeros(DType.FLOAT32, rows, cols));
            Parameter b = new Parameter("b", Tensor.zeros(DType.FLOAT32, cols), Tensor.zeros(DType.FLOAT32, cols));
            Tensor buffer = Tensor.zeros(DType.FLOAT32, (long) rows * cols + cols);
            CommHook hook = hookOf.apply(group);
            GradBucket bucket = new GradBucket(0, 1, buffer, List.of(w, b));
            return Flux.range(0, iterations)
                    .concatMap(it -> Mono.defer(() -> {
                        FloatOps.write(buffer, grads.apply(group.rank(), it));
                        return hook.runHook(bucket).map(FloatOps::read);
                    }))
                    .collectList()
                    .doOnNext(x -> after.accept(group.rank(), hook))
                    .doFinally(s -> {
                        buffer.release();
                        for (Parameter p : List.of(w, b)) {
                            p.value().release();
                            p.grad().release();
                        }
                    });
        });
    }

    @Test
    void allReduceHookAveragesAtThreeRanks() {
        List<List<float[]>> out = runHook(3, 4, 3, 1, AllReduceHook::new, (rank, it) -> gradients(rank, 4, 3, 1), (r, h) -> { });
        float[] expected = mean(List.of(gradients(0, 4, 3, 1), gradients(1, 4, 3, 1), gradients(2, 4, 3, 1)));
        for (List<float[]> rank : out) {
            assertArrayEquals(expected, rank.get(0), 1e-5f);
        }
    }

    @Test
    void halfPrecisionHooksAverageWithinTheirRounding() {
        float[] expected = mean(List.of(gradients(0, 8, 5, 2), gradients(1, 8, 5, 2)));
        List<List<float[]>> fp16 = runHook(2, 8, 5, 1, Fp16CompressHook::new, (rank, it) -> gradients(rank, 8, 5, 2), (r, h) -> { });
        List<List<float[]>> bf16 = runHook(2, 8, 5, 1, Bf16CompressHook::new, (rank, it) -> gradients(rank, 8, 5, 2), (r, h) -> { });
        for (int rank = 0; rank < 2; rank++) {
            float[] h = fp16.get(rank).get(0);
            float[] b = bf16.get(rank).get(0);
            boolean bfRounded = false;
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], h[i], 2e-3 * Math.max(1, Math.abs(expected[i])), "fp16 element " + i);
                assertEquals(expected[i], b[i], 1.6e-2 * Math.max(1, Math.abs(expected[i])), "bf16 element " + i);
                bfRounded |= b[i] != expected[i];
            }
            assertTrue(bfRounded, "bf16 keeps 8 bits of mantissa, so some values must have been rounded");
            assertArrayEquals(fp16.get(0).get(0), h, "every rank gets the same fp16 result");
        }
    }

    @Test
    void powerSgdIsExactWhenTheRankCoversTheMatrix() {
        // a 6 x 4 weight has rank <= 4: with r = 4 the approximation is exact
        List<List<float[]>> out = runHook(2, 6, 4, 2,
                g -> new PowerSgdHook(new PowerSgdState(g, 4, 0, 0.0, false, true, 0.0, 3)),
                (rank, it) -> gradients(rank, 6, 4, 10 + it), (r, h) -> { });
        for (int it = 0; it < 2; it++) {
            float[] expected = mean(List.of(gradients(0, 6, 4, 10 + it), gradients(1, 6, 4, 10 + it)));
            for (List<float[]> rank : out) {
                assertArrayEquals(expected, rank.get(it), 2e-4f, "iteration " + it);
            }
        }
    }

    @Test
    void powerSgdRankOneKeepsTheErrorAndFeedsItBack() {
        int rows = 6;
        int cols = 5;
        int iterations = 3;
        float[][] errors = new float[2][];
        long[] iters = new long[2];
        List<List<float[]>> out = runHook(2, rows, cols, iterations,
                g -> new PowerSgdHook(new PowerSgdState(g, 1, 1, 0.0, true, true, 0.0, 5)),
                (rank, it) -> gradients(rank, rows, cols, 20 + it),
                (rank, hook) -> {
                    PowerSgdState s = ((PowerSgdHook) hook).state();
                    errors[rank] = s.error(0);
                    iters[rank] = s.iteration();
                });
        assertEquals(iterations, iters[0]);
        // iteration 0 is before start_powerSGD_iter = 1: exact
        float[] first = mean(List.of(gradients(0, rows, cols, 20), gradients(1, rows, cols, 20)));
        assertArrayEquals(first, out.get(0).get(0), 1e-5f);
        // afterwards the weight is compressed (not exact) but the bias (1-D) is all-reduced as it is
        float[] second = mean(List.of(gradients(0, rows, cols, 21), gradients(1, rows, cols, 21)));
        float[] got = out.get(0).get(1);
        assertNotEquals(second[0], got[0], 1e-4f);
        assertArrayEquals(out.get(0).get(1), out.get(1).get(1), 1e-6f, "ranks agree");
        // error feedback telescopes: sum of outputs + mean of final errors == sum of mean gradients
        assertNotNull(errors[0]);
        for (int i = 0; i < first.length; i++) {
            double sumOut = 0;
            double sumMean = 0;
            for (int it = 0; it < iterations; it++) {
                sumOut += out.get(0).get(it)[i];
                sumMean += mean(List.of(gradients(0, rows, cols, 20 + it), gradients(1, rows, cols, 20 + it)))[i];
            }
            double meanErr = (errors[0][i] + errors[1][i]) / 2;
            assertEquals(sumMean, sumOut + meanErr, 1e-4, "element " + i);
        }
    }
}
