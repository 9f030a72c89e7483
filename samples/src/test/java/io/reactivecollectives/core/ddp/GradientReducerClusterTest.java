package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GradientReducer and broadcastCoalesced on real ranks. */
class GradientReducerClusterTest {

    private static final long[][] SHAPES = {{16, 8}, {8}, {8, 8}, {8}, {8, 4}, {4}};

    private static float[] grad(int rank, int param, int iteration) {
        Random r = new Random(rank * 1000L + param * 10L + iteration);
        long n = 1;
        for (long d : SHAPES[param]) {
            n *= d;
        }
        float[] g = new float[(int) n];
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) r.nextGaussian();
        }
        return g;
    }

    private static List<Parameter> model(int rank) {
        List<Parameter> ps = new ArrayList<>();
        for (int i = 0; i < SHAPES.length; i++) {
            Tensor v = Tensor.zeros(DType.FLOAT32, SHAPES[i]).fill(rank * 100 + i);
            ps.add(new Parameter("p" + i, v, Tensor.zeros(DType.FLOAT32, SHAPES[i])));
        }
        return ps;
    }

    private static void release(List<Parameter> ps) {
        for (Parameter p : ps) {
            p.value().release();
            p.grad().release();
        }
    }

    @Test
    void reducesEveryBucketToTheAverageAndBroadcastsRankZerosValues() {
        int world = 3;
        // 16x8 floats = 512 bytes; caps of 160 bytes give several buckets
        List<List<Object>> results = ClusterFixture.onRanks(world, group -> {
            List<Parameter> ps = model(group.rank());
            GradientReducer reducer = GradientReducer.builder(group).parameters(ps)
                    .bucketCapBytes(160).firstBucketBytes(64).broadcastBufferBytes(200).build();
            List<Object> seen = new ArrayList<>();
            seen.add(reducer.bucketCount());
            return reducer.broadcastParameters()
                    .then(Flux.range(0, 2).concatMap(it -> Mono.defer(() -> {
                        // a backward pass: last parameter first
                        for (int i = ps.size() - 1; i >= 0; i--) {
                            FloatOps.write(ps.get(i).grad(), grad(group.rank(), i, it));
                            reducer.markReady(ps.get(i));
                        }
                        return reducer.finish();
                    }).then(Mono.fromCallable(() -> {
                        List<float[]> gs = new ArrayList<>();
                        ps.forEach(p -> gs.add(p.grad().toFloatArray()));
                        return gs;
                    }))).collectList())
                    .map(perIteration -> {
                        seen.add(perIteration);
                        List<float[]> values = new ArrayList<>();
                        ps.forEach(p -> values.add(p.value().toFloatArray()));
                        seen.add(values);
                        return seen;
                    })
                    .doFinally(s -> {
                        reducer.close();
                        release(ps);
                    });
        });
        for (int rank = 0; rank < world; rank++) {
            List<Object> r = results.get(rank);
            // reverse order: p5(16B)+p4(128B) >= 64 -> bucket 0; p3+p2(288B) >= 160 -> 1; p1+p0(544B) -> 2
            assertEquals(3, r.get(0));
            @SuppressWarnings("unchecked")
            List<List<float[]>> iterations = (List<List<float[]>>) r.get(1);
            for (int it = 0; it < 2; it++) {
                for (int i = 0; i < SHAPES.length; i++) {
                    float[] expected = new float[grad(0, i, it).length];
                    for (int k = 0; k < world; k++) {
                        float[] g = grad(k, i, it);
                        for (int j = 0; j < expected.length; j++) {
                            expected[j] += g[j] / world;
                        }
                    }
                    assertArrayEquals(expected, iterations.get(it).get(i), 1e-5f, "rank " + rank + " iteration " + it + " p" + i);
                }
            }
            @SuppressWarnings("unchecked")
            List<float[]> values = (List<float[]>) r.get(2);
            for (int i = 0; i < SHAPES.length; i++) {
                assertEquals(i, values.get(i)[0], "rank " + rank + " holds rank 0's value of p" + i);
            }
        }
    }

    @Test
    void bucketAssignmentFollowsReverseRegistrationOrder() {
        List<List<String>> names = ClusterFixture.onRanks(2, group -> {
            List<Parameter> ps = model(group.rank());
            GradientReducer reducer = GradientReducer.builder(group).parameters(ps).bucketCapBytes(160).firstBucketBytes(64).build();
            List<String> out = new ArrayList<>();
            reducer.bucketParameters().forEach(b -> out.add(b.stream().map(Parameter::name).reduce((a, c) -> a + "," + c).orElse("")));
            reducer.close();
            release(ps);
            return Mono.just(out);
        });
        assertEquals(List.of("p5,p4", "p3,p2", "p1,p0"), names.get(0));
        assertEquals(names.get(0), names.get(1));
    }

    @Test
    void reactiveFormEmitsBucketsInOrderAndMissingGradientsFailFinish() {
        List<List<Object>> results = ClusterFixture.onRanks(2, group -> {
            List<Parameter> ps = model(group.rank());
            GradientReducer reducer = GradientReducer.builder(group).parameters(ps).bucketCapBytes(160).firstBucketBytes(64)
                    .hook(new Fp16CompressHook(group)).build();
            for (int i = 0; i < ps.size(); i++) {
                FloatOps.write(ps.get(i).grad(), grad(group.rank(), i, 0));
            }
            List<Parameter> order = new ArrayList<>(ps);
            java.util.Collections.reverse(order);
            List<Object> out = new ArrayList<>();
            return reducer.reduce(Flux.fromIterable(order)).map(GradBucket::index).collectList()
                    .doOnNext(out::add)
                    // an incomplete iteration: p0 never marked ready; buckets 0 and 1 are still reduced
                    .then(Mono.defer(() -> {
                        for (int i = ps.size() - 1; i >= 1; i--) {
                            reducer.markReady(ps.get(i));
                        }
                        return reducer.finish();
                    }))
                    .then(Mono.just("completed"))
                    .onErrorResume(IllegalStateException.class, e -> Mono.just(e.getMessage()))
                    .map(msg -> {
                        out.add(msg);
                        return out;
                    })
                    .doFinally(s -> {
                        reducer.close();
                        release(ps);
                    });
        });
        for (List<Object> r : results) {
            assertEquals(List.of(0, 1, 2), r.get(0));
            assertTrue(((String) r.get(1)).contains("[p0]"), (String) r.get(1));
        }
    }

    @Test
    void sparseGradientsAreReducedToTheDenseAverage() {
        List<float[]> results = ClusterFixture.onRanks(2, group -> {
            Parameter emb = new Parameter("emb", Tensor.zeros(DType.FLOAT32, 4, 2), Tensor.zeros(DType.FLOAT32, 4, 2));
            Parameter dense = new Parameter("dense", Tensor.zeros(DType.FLOAT32, 3), Tensor.zeros(DType.FLOAT32, 3));
            GradientReducer reducer = GradientReducer.builder(group).sparseParameter(emb).parameter(dense).build();
            // rank 0 touches rows 1 and 3, rank 1 touches row 1 twice
            Tensor idx = group.rank() == 0 ? Tensor.fromLongs(new long[] {1, 3}) : Tensor.fromLongs(new long[] {1, 1});
            Tensor vals = Tensor.fromFloats(group.rank() == 0 ? new float[] {2, 4, 6, 8} : new float[] {1, 1, 1, 1}, 2, 2);
            dense.grad().fill(group.rank() + 1);
            reducer.markReady(dense);
            reducer.markReady(emb, new SparseGradient(idx, vals));
            return reducer.finish().then(Mono.fromCallable(() -> {
                float[] e = emb.grad().toFloatArray();
                float[] d = dense.grad().toFloatArray();
                float[] all = new float[e.length + d.length];
                System.arraycopy(e, 0, all, 0, e.length);
                System.arraycopy(d, 0, all, e.length, d.length);
                return all;
            })).doFinally(s -> {
                reducer.close();
                idx.release();
                vals.release();
                for (Parameter p : List.of(emb, dense)) {
                    p.value().release();
                    p.grad().release();
                }
            });
        });
        float[] expected = {0, 0, 2, 3, 0, 0, 3, 4, 1.5f, 1.5f, 1.5f};
        assertArrayEquals(expected, results.get(0), 1e-6f);
        assertArrayEquals(expected, results.get(1), 1e-6f);
    }

    /**
     * A sparse bucket travels as its rows, as DDP's hook sends a sparse gradient: 3 ranks each touch
     * 16 rows (some shared) of a 4096 x 64 float embedding (1 MiB dense), and each sends a few
     * KiB, not the ring all-reduce's 1.3 MiB; every rank ends with the dense average. The rows come
     * through the reactive form, which asks for them when the parameter arrives and releases them.
     */
    @Test
    void aSparseBucketTravelsAsItsRowsNotAsTheDenseParameter() {
        int world = 3;
        int rows = 4096;
        int width = 64;
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        io.reactivecollectives.transport.LocalCluster cluster = io.reactivecollectives.transport.LocalCluster.start(world,
                io.reactivecollectives.transport.GroupOptions.defaults().withGroupId("sparse-rows").withMeterRegistry(registry))
                .block(Duration.ofSeconds(30));
        List<float[]> results;
        double[] sent = new double[world];
        try {
            results = cluster.run(group -> {
                int r = group.rank();
                Parameter emb = new Parameter("emb", Tensor.zeros(DType.FLOAT32, rows, width), Tensor.zeros(DType.FLOAT32, rows, width));
                GradientReducer reducer = GradientReducer.builder(group).sparseParameter(emb).build();
                long[] touched = new long[16];
                float[] vals = new float[16 * width];
                for (int k = 0; k < 16; k++) {
                    touched[k] = k < 4 ? k * 7 : 100 * (r + 1) + k;   // rows 0, 7, 14, 21 on every rank
                    for (int j = 0; j < width; j++) {
                        vals[k * width + j] = r + 1 + j;
                    }
                }
                // the reactive form: the reducer asks for the rows and releases them once copied
                return reducer.reduce(Flux.just(emb), p -> new SparseGradient(Tensor.fromLongs(touched),
                        Tensor.fromFloats(vals, 16, width))).then(Mono.fromCallable(() -> emb.grad().toFloatArray())).doFinally(s -> {
                    reducer.close();
                    emb.value().release();
                    emb.grad().release();
                });
            }).block(Duration.ofSeconds(60));
            for (int r = 0; r < world; r++) {   // the group's meters leave the registry when it closes
                sent[r] = registry.get(io.reactivecollectives.core.observe.MetricNames.BYTES_SENT)
                        .tag(io.reactivecollectives.core.observe.MetricNames.TAG_RANK, Integer.toString(r)).counter().count();
            }
        } finally {
            cluster.close();
        }
        float[] expected = new float[rows * width];
        for (int r = 0; r < world; r++) {
            for (int k = 0; k < 16; k++) {
                int row = k < 4 ? k * 7 : 100 * (r + 1) + k;
                for (int j = 0; j < width; j++) {
                    expected[row * width + j] += (r + 1 + j) / (float) world;
                }
            }
        }
        for (float[] got : results) {
            assertArrayEquals(expected, got, 1e-4f);
        }
        for (int r = 0; r < world; r++) {
            assertTrue(sent[r] > 0 && sent[r] < 64 * 1024, "rank " + r + " sent " + sent[r] + " bytes for 16 rows of 256 bytes");
        }
    }

    /**
     * The reactive form owns the rows it asks for: taken as the bucket (no copy) and released with
     * it, or released at once when refused (a sparse parameter arriving twice).
     */
    @Test
    void rowsTheReducerAskedForAreReleasedAlsoWhenRefused() {
        List<Tensor> made = new ArrayList<>();
        List<String> errors = ClusterFixture.onRanks(1, group -> {
            Parameter emb = new Parameter("emb", Tensor.zeros(DType.FLOAT32, 8, 2), Tensor.zeros(DType.FLOAT32, 8, 2));
            GradientReducer reducer = GradientReducer.builder(group).sparseParameter(emb).build();
            return reducer.reduce(Flux.just(emb, emb), p -> {
                Tensor idx = Tensor.fromLongs(new long[] {1, 5});
                Tensor vals = Tensor.fromFloats(new float[] {1, 2, 3, 4}, 2, 2);
                made.add(idx);
                made.add(vals);
                return new SparseGradient(idx, vals);
            }).then(Mono.just("no error")).onErrorResume(e -> Mono.just(e.getMessage())).doFinally(s -> {
                reducer.close();
                emb.value().release();
                emb.grad().release();
            });
        });
        assertTrue(errors.get(0).contains("marked ready twice"), errors.get(0));
        assertEquals(4, made.size());
        for (Tensor t : made) {
            assertEquals(0, t.refCnt(), "a tensor of the rows was not released: " + t);
        }
    }

    @Test
    void broadcastCoalescedCopiesTheRootsTensorsThroughSeveralBuffers() {
        List<List<double[]>> results = ClusterFixture.onRanks(3, group -> {
            int r = group.rank();
            List<Tensor> ts = List.of(
                    Tensor.zeros(DType.FLOAT32, 5).fill(r + 0.5),
                    Tensor.zeros(DType.FLOAT32, 3).fill(r + 1.5),
                    Tensor.zeros(DType.INT64, 2).fill(r + 7),
                    Tensor.zeros(DType.FLOAT64, 40).fill(r - 2));
            return BroadcastCoalesced.broadcastCoalesced(group, ts, 32, 1)
                    .map(out -> {
                        List<double[]> v = new ArrayList<>();
                        out.forEach(t -> v.add(t.toDoubleArray()));
                        return v;
                    })
                    .doFinally(s -> ts.forEach(Tensor::release));
        });
        for (List<double[]> r : results) {
            assertEquals(1.5, r.get(0)[4]);
            assertEquals(2.5, r.get(1)[0]);
            assertEquals(8.0, r.get(2)[1]);
            assertEquals(-1.0, r.get(3)[39]);
        }
    }
}
