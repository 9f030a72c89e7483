package io.reactivecollectives.cuda;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HostStagedProcessGroup on 2 real ranks (a LocalCluster over loopback), with host memory standing
 * in for the device ({@link FakeDevice}): every staged op's result lands in the "device" tensors,
 * stages a rank does not need are skipped, and bad input fails before anything is sent.
 */
class HostStagedProcessGroupTest {

    private static final int CHUNK = 4096; // bytes: 1024 floats, so the tensors below span several chunks
    private static final Duration T = Duration.ofSeconds(30);

    private LocalCluster cluster;
    private final List<HostStagedProcessGroup> staged = new ArrayList<>();
    private final List<PinnedBufferPool> pools = new ArrayList<>();
    private final List<FakeDevice.Copies> copies = new ArrayList<>();
    private final List<StageEvent> events = new CopyOnWriteArrayList<>();
    private final List<Tensor> tensors = new ArrayList<>();

    @BeforeEach
    void start() {
        cluster = LocalCluster.start(2).block(Duration.ofSeconds(30));
        for (ProcessGroup g : cluster.groups()) {
            PinnedBufferPool pool = new PinnedBufferPool(HostAllocator.direct(), CHUNK, 5);
            FakeDevice.Copies c = new FakeDevice.Copies(0);
            pools.add(pool);
            copies.add(c);
            staged.add(new HostStagedProcessGroup(g, c, pool,
                    HostStagedProcessGroup.Options.DEFAULT.withChunkBytes(CHUNK).withListener(events::add)));
        }
    }

    @AfterEach
    void stop() {
        tensors.forEach(t -> {
            if (t.refCnt() > 0) {
                t.release();
            }
        });
        staged.forEach(HostStagedProcessGroup::close);
        if (cluster != null) {
            cluster.close();
        }
        for (PinnedBufferPool p : pools) {
            assertEquals(0, p.leasedSlabs(), "every slab back: " + p);
            p.close();
        }
    }

    private Tensor dev(float... values) {
        Tensor t = FakeDevice.floats(values);
        tensors.add(t);
        return t;
    }

    private Tensor cpuTensor(float... values) {
        Tensor t = Tensor.fromFloats(values);
        tensors.add(t);
        return t;
    }

    private static float[] values(int n, float scale, float offset) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (i % 97) * scale + offset;
        }
        return v;
    }

    private long copiesOf(int rank) {
        return copies.get(rank).threads.size();
    }

    @Test
    void allReduceOfDeviceTensorsLandsOnTheDevice() {
        int n = 1024 * 5 + 17;
        Tensor a = dev(values(n, 1, 0));
        Tensor b = dev(values(n, 2, 1));
        StepVerifier.create(Mono.zip(staged.get(0).allReduce(a, ReduceOp.SUM), staged.get(1).allReduce(b, ReduceOp.SUM)))
                .assertNext(t -> {
                    assertTrue(t.getT1() == a && t.getT2() == b, "emits the caller's tensors");
                })
                .verifyComplete();
        float[] expected = new float[n];
        for (int i = 0; i < n; i++) {
            expected[i] = (i % 97) * 3 + 1;
        }
        assertArrayEquals(expected, FakeDevice.read(a));
        assertArrayEquals(expected, FakeDevice.read(b));
        assertEquals(12, copiesOf(0), "6 chunks in and 6 out on each rank");
        assertTrue(events.stream().filter(e -> e.stage() == StageEvent.Stage.NETWORK).count() == 12);
    }

    @Test
    void cpuTensorsPassStraightThrough() {
        Tensor a = cpuTensor(1, 2, 3);
        Tensor b = cpuTensor(10, 20, 30);
        StepVerifier.create(Mono.zip(staged.get(0).allReduce(a, ReduceOp.MAX), staged.get(1).allReduce(b, ReduceOp.MAX)))
                .expectNextCount(1).verifyComplete();
        assertArrayEquals(new float[] {10, 20, 30}, a.toFloatArray());
        assertEquals(0, copiesOf(0) + copiesOf(1), "no copies for CPU tensors");
    }

    @Test
    void broadcastCopiesInOnTheRootAndBackOnTheOthers() {
        int n = 3000;
        Tensor a = dev(values(n, 0, 0));
        Tensor b = dev(values(n, 1, 5));
        StepVerifier.create(Mono.zip(staged.get(0).broadcast(a, 1), staged.get(1).broadcast(b, 1)))
                .expectNextCount(1).verifyComplete();
        assertArrayEquals(values(n, 1, 5), FakeDevice.read(a));
        assertArrayEquals(values(n, 1, 5), FakeDevice.read(b));
        assertEquals(3, copiesOf(0), "the receiver only copies back");
        assertEquals(3, copiesOf(1), "the root only copies in");
    }

    @Test
    void reduceCopiesBackOnlyOnTheRoot() {
        int n = 2500;
        Tensor a = dev(values(n, 1, 1));
        Tensor b = dev(values(n, 1, 2));
        StepVerifier.create(Mono.zip(staged.get(0).reduce(a, 0, ReduceOp.SUM, CollectiveOptions.DEFAULT),
                        staged.get(1).reduce(b, 0, ReduceOp.SUM, CollectiveOptions.DEFAULT)))
                .expectNextCount(1).verifyComplete();
        float[] sum = values(n, 2, 3);
        assertArrayEquals(sum, FakeDevice.read(a));
        assertArrayEquals(values(n, 1, 2), FakeDevice.read(b), "a non-root's device tensor is not written");
        assertEquals(6, copiesOf(0));
        assertEquals(3, copiesOf(1));
    }

    @Test
    void allReduceCoalescedReducesEveryTensor() {
        Tensor a1 = dev(values(1500, 1, 0));
        Tensor a2 = dev(values(7, 1, 100));
        Tensor b1 = dev(values(1500, 1, 1));
        Tensor b2 = dev(values(7, 1, 200));
        StepVerifier.create(Mono.zip(
                        staged.get(0).allReduceCoalesced(List.of(a1, a2), ReduceOp.SUM, CollectiveOptions.DEFAULT),
                        staged.get(1).allReduceCoalesced(List.of(b1, b2), ReduceOp.SUM, CollectiveOptions.DEFAULT)))
                .assertNext(t -> assertEquals(List.of(a1, a2), t.getT1()))
                .verifyComplete();
        assertArrayEquals(values(1500, 2, 1), FakeDevice.read(a1));
        assertArrayEquals(values(7, 2, 300), FakeDevice.read(b2));
    }

    @Test
    void sendAndRecvMoveADeviceTensorChunkByChunk() {
        int n = 1024 * 4 + 3;
        Tensor src = dev(values(n, 3, 1));
        Tensor dst = dev(new float[n]);
        StepVerifier.create(Mono.when(staged.get(0).send(src, 1, 7), staged.get(1).recv(dst, 0, 7)))
                .verifyComplete();
        assertArrayEquals(values(n, 3, 1), FakeDevice.read(dst));
        assertEquals(5, copiesOf(0), "the sender copies in");
        assertEquals(5, copiesOf(1), "the receiver copies back");
    }

    @Test
    void allReduceStreamStagesEachDeviceChunk() {
        int chunks = 6;
        Tensor a = dev(values(600, 1, 0));
        Tensor b = dev(values(600, 1, 1));
        Flux<Chunk> ca = Flux.fromIterable(a.chunks(chunks));
        Flux<Chunk> cb = Flux.fromIterable(b.chunks(chunks));
        List<Integer> order = new CopyOnWriteArrayList<>();
        StepVerifier.create(Flux.merge(staged.get(0).allReduceStream(ca, ReduceOp.SUM, 2).doOnNext(c -> order.add(c.index())),
                        staged.get(1).allReduceStream(cb, ReduceOp.SUM, 2)))
                .expectNextCount(2 * chunks)
                .verifyComplete();
        assertEquals(List.of(0, 1, 2, 3, 4, 5), order, "chunks come out in order");
        assertArrayEquals(values(600, 2, 1), FakeDevice.read(a));
        assertArrayEquals(values(600, 2, 1), FakeDevice.read(b));
    }

    @Test
    void collectivesSubscribedBackToBackKeepTheirOrderOnEveryRank() {
        Tensor a1 = dev(values(3000, 1, 0));
        Tensor a2 = dev(values(3000, 1, 10));
        Tensor b1 = dev(values(3000, 1, 0));
        Tensor b2 = dev(values(3000, 1, 10));
        StepVerifier.create(Mono.when(
                        staged.get(0).allReduce(a1, ReduceOp.SUM), staged.get(0).allReduce(a2, ReduceOp.MAX),
                        staged.get(1).allReduce(b1, ReduceOp.SUM), staged.get(1).allReduce(b2, ReduceOp.MAX)))
                .verifyComplete();
        assertArrayEquals(values(3000, 2, 0), FakeDevice.read(a1));
        assertArrayEquals(values(3000, 1, 10), FakeDevice.read(b2));
    }

    private long networkEvents(String op) {
        return events.stream().filter(e -> e.stage() == StageEvent.Stage.NETWORK && e.op().equals(op)).count();
    }

    private static float[] concat(float[]... parts) {
        int n = 0;
        for (float[] p : parts) {
            n += p.length;
        }
        float[] out = new float[n];
        int at = 0;
        for (float[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    // chunks of the multi-tensor ops hold 3 tensors' worth (1 + world size) of a 4 KiB slab: 341 floats
    private static final int N = 1000; // 3 chunks

    @Test
    void allGatherOfDeviceTensorsGoesChunkByChunk() {
        float[] x0 = values(N, 1, 0);
        float[] x1 = values(N, 2, 5);
        Tensor in0 = dev(x0), in1 = dev(x1);
        List<Tensor> out0 = List.of(dev(new float[N]), dev(new float[N]));
        List<Tensor> out1 = List.of(dev(new float[N]), cpuTensor(new float[N])); // a CPU output takes its chunk directly
        StepVerifier.create(Mono.zip(staged.get(0).allGather(out0, in0), staged.get(1).allGather(out1, in1)))
                .assertNext(t -> assertTrue(t.getT1() == out0 && t.getT2() == out1))
                .verifyComplete();
        for (List<Tensor> outs : List.of(out0, out1)) {
            assertArrayEquals(x0, outs.get(0).isCpu() ? outs.get(0).toFloatArray() : FakeDevice.read(outs.get(0)));
            assertArrayEquals(x1, outs.get(1).isCpu() ? outs.get(1).toFloatArray() : FakeDevice.read(outs.get(1)));
        }
        assertEquals(6, networkEvents("allGather"), "3 chunks on each of 2 ranks");
        assertEquals(3 + 3 * 2, copiesOf(0), "rank 0: 3 chunks in, 3 chunks of 2 outputs back");
        assertEquals(3 + 3, copiesOf(1), "rank 1: 3 chunks in, 3 chunks of its one device output back");
    }

    @Test
    void allGatherIntoAndReduceScatterTensorCutTheBigTensorIntoWorldSlices() {
        float[] x0 = values(N, 1, 0);
        float[] x1 = values(N, 3, 2);
        Tensor in0 = dev(x0), in1 = dev(x1);
        Tensor big0 = dev(new float[2 * N]), big1 = dev(new float[2 * N]);
        StepVerifier.create(Mono.when(staged.get(0).allGatherInto(big0, in0), staged.get(1).allGatherInto(big1, in1)))
                .verifyComplete();
        assertArrayEquals(concat(x0, x1), FakeDevice.read(big0));
        assertArrayEquals(concat(x0, x1), FakeDevice.read(big1));
        assertEquals(6, networkEvents("allGatherInto"));

        // reduce-scatter of [x0 | x1] on both ranks: rank r gets 2 * slice r
        Tensor o0 = dev(new float[N]), o1 = dev(new float[N]);
        StepVerifier.create(Mono.when(staged.get(0).reduceScatterTensor(o0, big0, ReduceOp.SUM),
                        staged.get(1).reduceScatterTensor(o1, big1, ReduceOp.SUM)))
                .verifyComplete();
        float[] twice0 = new float[N], twice1 = new float[N];
        for (int i = 0; i < N; i++) {
            twice0[i] = 2 * x0[i];
            twice1[i] = 2 * x1[i];
        }
        assertArrayEquals(twice0, FakeDevice.read(o0));
        assertArrayEquals(twice1, FakeDevice.read(o1));
        assertEquals(6, networkEvents("reduceScatterTensor"));
    }

    @Test
    void reduceScatterGatherAndScatterOfDeviceTensors() {
        float[] a = values(N, 1, 1), b = values(N, 2, 0), c = values(N, 4, 3), d = values(N, 5, 7);
        Tensor o0 = dev(new float[N]), o1 = dev(new float[N]);
        StepVerifier.create(Mono.when(staged.get(0).reduceScatter(o0, List.of(dev(a), dev(b)), ReduceOp.MAX),
                        staged.get(1).reduceScatter(o1, List.of(dev(c), dev(d)), ReduceOp.MAX)))
                .verifyComplete();
        float[] max0 = new float[N], max1 = new float[N];
        for (int i = 0; i < N; i++) {
            max0[i] = Math.max(a[i], c[i]);
            max1[i] = Math.max(b[i], d[i]);
        }
        assertArrayEquals(max0, FakeDevice.read(o0));
        assertArrayEquals(max1, FakeDevice.read(o1));
        assertEquals(6, networkEvents("reduceScatter"));

        // gather to rank 1: only the root has outputs, both ranks cut 3 chunks
        List<Tensor> gathered = List.of(dev(new float[N]), dev(new float[N]));
        StepVerifier.create(Mono.when(staged.get(0).gather(List.of(), dev(a), 1), staged.get(1).gather(gathered, dev(b), 1)))
                .verifyComplete();
        assertArrayEquals(a, FakeDevice.read(gathered.get(0)));
        assertArrayEquals(b, FakeDevice.read(gathered.get(1)));
        assertEquals(6, networkEvents("gather"));

        // scatter from rank 0
        Tensor s0 = dev(new float[N]), s1 = dev(new float[N]);
        StepVerifier.create(Mono.when(staged.get(0).scatter(s0, List.of(dev(c), dev(d)), 0), staged.get(1).scatter(s1, List.of(), 0)))
                .verifyComplete();
        assertArrayEquals(c, FakeDevice.read(s0));
        assertArrayEquals(d, FakeDevice.read(s1));
        assertEquals(6, networkEvents("scatter"));
    }

    @Test
    void allToAllSingleWithEqualSplitsGoesChunkByChunk() {
        float[] a0 = values(N, 1, 0), a1 = values(N, 2, 1), b0 = values(N, 3, 2), b1 = values(N, 4, 3);
        Tensor in0 = dev(concat(a0, a1)), in1 = dev(concat(b0, b1));
        Tensor out0 = dev(new float[2 * N]), out1 = dev(new float[2 * N]);
        StepVerifier.create(Mono.when(staged.get(0).allToAllSingle(out0, in0, new long[0], new long[0]),
                        staged.get(1).allToAllSingle(out1, in1, null, null)))
                .verifyComplete();
        assertArrayEquals(concat(a0, b0), FakeDevice.read(out0));
        assertArrayEquals(concat(a1, b1), FakeDevice.read(out1));
        assertTrue(networkEvents("allToAllSingle") > 2, "several chunks per rank");
    }

    @Test
    void allToAllSingleWithExplicitSplitsGoesChunkByChunkAfterTheRanksAgreeHowMany() {
        // rank 0 keeps 2000 elements and sends 300; rank 1 sends 700 and keeps 10. Chunks hold 256
        // elements per piece (4 KiB slab / (2 x world) / 4 bytes): rank 0 needs 8, rank 1 alone 3.
        float[] in0 = values(2300, 1, 0), in1 = values(710, 3, 5);
        Tensor d0 = dev(in0), d1 = dev(in1);
        Tensor o0 = dev(new float[2700]), o1 = dev(new float[310]);
        StepVerifier.create(Mono.when(
                        staged.get(0).allToAllSingle(o0, d0, new long[] {2000, 700}, new long[] {2000, 300}),
                        staged.get(1).allToAllSingle(o1, d1, new long[] {300, 10}, new long[] {700, 10})))
                .verifyComplete();
        assertArrayEquals(concat(Arrays.copyOfRange(in0, 0, 2000), Arrays.copyOfRange(in1, 0, 700)), FakeDevice.read(o0));
        assertArrayEquals(concat(Arrays.copyOfRange(in0, 2000, 2300), Arrays.copyOfRange(in1, 700, 710)), FakeDevice.read(o1));
        assertEquals(2 * 8, networkEvents("allToAllSingle"), "8 chunks on each rank, the count rank 0 needs");

        // splits in rows of a 2-D tensor (3 elements a row)
        Tensor r0 = FakeDevice.floats(values(12, 1, 0));
        Tensor r1 = FakeDevice.floats(values(6, 1, 50));
        tensors.addAll(List.of(r0, r1));
        Tensor m0 = FakeDevice.floats(new float[9]);
        Tensor m1 = FakeDevice.floats(new float[9]);
        tensors.addAll(List.of(m0, m1));
        StepVerifier.create(Mono.when(
                        staged.get(0).allToAllSingle(m0.reshape(3, 3), r0.reshape(4, 3), new long[] {1, 2}, new long[] {1, 3}),
                        staged.get(1).allToAllSingle(m1.reshape(3, 3), r1.reshape(2, 3), new long[] {3, 0}, new long[] {2, 0})))
                .verifyComplete();
        float[] x0 = values(12, 1, 0), x1 = values(6, 1, 50);
        assertArrayEquals(concat(Arrays.copyOfRange(x0, 0, 3), x1), FakeDevice.read(m0));
        assertArrayEquals(Arrays.copyOfRange(x0, 3, 12), FakeDevice.read(m1));
    }

    @Test
    void listAllToAllOfUnevenTensorsGoesChunkByChunk() {
        float[] a = values(5, 1, 1), b = values(600, 2, 0), c = values(3, 1, 7);
        List<Tensor> in0 = List.of(dev(a), dev(new float[0]));
        List<Tensor> in1 = List.of(dev(b), cpuTensor(c));
        List<Tensor> out0 = List.of(dev(new float[5]), dev(new float[600]));
        List<Tensor> out1 = List.of(dev(new float[0]), dev(new float[3]));
        StepVerifier.create(Mono.when(staged.get(0).allToAll(out0, in0), staged.get(1).allToAll(out1, in1)))
                .verifyComplete();
        assertArrayEquals(a, FakeDevice.read(out0.get(0)));
        assertArrayEquals(b, FakeDevice.read(out0.get(1)));
        assertEquals(0, out1.get(0).numel());
        assertArrayEquals(c, FakeDevice.read(out1.get(1)));
        assertEquals(2 * 3, networkEvents("allToAll"), "600 elements: 3 chunks of 256 on each rank");
    }

    @Test
    void badAllToAllSplitsFailBeforeAnythingIsSent() {
        Tensor in = dev(values(10, 1, 0));
        Tensor out = dev(new float[10]);
        StepVerifier.create(staged.get(0).allToAllSingle(out, in, new long[] {5, 5}, new long[] {4, 4}))
                .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalArgumentException, e.toString()))
                .verify(T);
        // splits that fit the tensors, but rank 0 sends itself 6 rows and expects 5: caught before the
        // ranks agree on a chunk count (that all-reduce would already be a collective sent)
        StepVerifier.create(staged.get(0).allToAllSingle(out, in, new long[] {5, 5}, new long[] {6, 4}))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().startsWith("allToAllSingle: rank 0 sends itself 6 rows"),
                        e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(0).allToAll(List.of(dev(1, 2), dev(3)), List.of(dev(1), dev(3))))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().startsWith("allToAll: rank 0 sends itself 1 elements"), e.getMessage()))
                .verify(T);
        assertEquals(0, copiesOf(0), "nothing staged");
        // nothing was sent: the ranks still agree on the next collective
        Tensor a = dev(1, 2), b = dev(3, 4);
        StepVerifier.create(Mono.when(staged.get(0).allReduce(a, ReduceOp.SUM), staged.get(1).allReduce(b, ReduceOp.SUM)))
                .verifyComplete();
        assertArrayEquals(new float[] {4, 6}, FakeDevice.read(a));
    }

    @Test
    void multiTensorOpsOfEmptyAndOneElementTensors() {
        for (int n : new int[] {0, 1}) {
            float[] x0 = values(n, 1, 4), x1 = values(n, 1, 9);
            List<Tensor> out0 = List.of(dev(new float[n]), dev(new float[n]));
            List<Tensor> out1 = List.of(dev(new float[n]), dev(new float[n]));
            StepVerifier.create(Mono.when(staged.get(0).allGather(out0, dev(x0)), staged.get(1).allGather(out1, dev(x1))))
                    .verifyComplete();
            for (List<Tensor> outs : List.of(out0, out1)) {
                assertArrayEquals(x0, FakeDevice.read(outs.get(0)));
                assertArrayEquals(x1, FakeDevice.read(outs.get(1)));
            }
        }
    }

    @Test
    void badInputFailsBeforeAnythingIsSent() {
        Tensor a = dev(1, 2, 3);
        Tensor b = dev(4, 5, 6);
        StepVerifier.create(staged.get(0).broadcast(a, 2))
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof IllegalArgumentException, e.toString());
                    assertTrue(e.getMessage().startsWith("broadcast: root 2"), e.getMessage());
                })
                .verify(T);
        Tensor ints = dev(1, 2);
        StepVerifier.create(staged.get(0).allReduce(ints, ReduceOp.BAND))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().startsWith("allReduce: ReduceOp.BAND"), e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(0).send(a, 0, 1))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("cannot send to itself"), e.getMessage()))
                .verify(T);
        assertEquals(0, copiesOf(0), "nothing staged");
        // nothing was sent: the ranks still agree on the next collective
        StepVerifier.create(Mono.when(staged.get(0).allReduce(a, ReduceOp.SUM), staged.get(1).allReduce(b, ReduceOp.SUM)))
                .verifyComplete();
        assertArrayEquals(new float[] {5, 7, 9}, FakeDevice.read(a));
    }

    @Test
    void moreBadInputFailsBeforeAnythingIsSentWithCollectiveArgumentsMessages() {
        Tensor a = dev(1, 2, 3);
        Tensor b = dev(4, 5, 6);
        StepVerifier.create(staged.get(0).allReduceCoalesced(List.of(a, cpuTensor(1, 2, 3)), ReduceOp.SUM, CollectiveOptions.DEFAULT))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().startsWith(
                        "allReduceCoalesced: tensors must all be on the CPU or all on devices"), e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(0).allReduceCoalesced(List.of(), ReduceOp.SUM, CollectiveOptions.DEFAULT))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().startsWith("allReduceCoalesced: requires a non-empty list"),
                        e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(0).reduce(a, -1, ReduceOp.SUM, CollectiveOptions.DEFAULT))
                .expectErrorSatisfies(e -> assertEquals("reduce: root -1 is not a rank of a group of 2", e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(0).recv(a, 0, 1))
                .expectErrorSatisfies(e -> assertEquals("recv: rank 0 cannot recv to itself", e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(1).send(a, 2, 1))
                .expectErrorSatisfies(e -> assertEquals("send: peer 2 is not a rank of a group of 2", e.getMessage()))
                .verify(T);
        StepVerifier.create(staged.get(0).allReduceStream(Flux.empty(), ReduceOp.SUM, 0))
                .expectErrorSatisfies(e -> assertEquals("allReduceStream: prefetch must be >= 1, got 0", e.getMessage()))
                .verify(T);
        Tensor released = FakeDevice.floats(1, 2);
        released.release();
        StepVerifier.create(staged.get(0).allReduce(released, ReduceOp.SUM))
                .expectErrorSatisfies(e -> assertEquals("allReduce: tensor was already released", e.getMessage()))
                .verify(T);
        assertEquals(0, copiesOf(0), "nothing staged");
        StepVerifier.create(Mono.when(staged.get(0).allReduce(a, ReduceOp.SUM), staged.get(1).allReduce(b, ReduceOp.SUM)))
                .verifyComplete();
        assertArrayEquals(new float[] {5, 7, 9}, FakeDevice.read(a));
    }
}
