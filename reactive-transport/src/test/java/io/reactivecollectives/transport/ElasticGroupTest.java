package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ElasticState;
import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.core.JobEndedException;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.failure.GrowPlanner;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Elastic groups with real ranks in one JVM: a rank is lost (its group closed), the survivors shrink,
 * and a new process asks to join with the lost rank's identity; at a boundary the members admit it,
 * the group is back at full size with the lost rank's number, and the state was streamed to it.
 */
class ElasticGroupTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Every tensor a test made, released at its end. */
    private final List<Tensor> made = new ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void release() {
        made.forEach(Tensor::release);
    }

    private Tensor keep(Tensor t) {
        made.add(t);
        return t;
    }

    private State state(float fill, long step, String model) {
        State s = new State(fill, step, model);
        keep(s.weights);
        return s;
    }

    private static GroupOptions options(String id) {
        return GroupOptions.defaults().withGroupId(id).withTimeout(Duration.ofSeconds(10))
                .withConnectTimeout(Duration.ofSeconds(8));
    }

    /** A parameter vector and a step counter; {@code restored} is what a joiner was handed. */
    static final class State implements ElasticState {
        final Tensor weights;
        final String model;
        long step;
        String restored;

        State(float fill, long step, String model) {
            this.weights = Tensor.zeros(DType.FLOAT32, 4096).fill(fill);
            this.step = step;
            this.model = model;
        }

        @Override
        public String fingerprint() {
            return model + " " + ElasticState.layoutOf(tensors());
        }

        @Override
        public List<Tensor> tensors() {
            return List.of(weights);
        }

        @Override
        public byte[] metadata() {
            return ("step=" + step).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public void restore(byte[] metadata) {
            restored = new String(metadata, StandardCharsets.UTF_8);
            step = Long.parseLong(restored.substring("step=".length()));
        }
    }

    /** A cluster and the elastic groups over it (the list may change), closed together. */
    private record Job(LocalCluster cluster, List<ElasticGroup> all) implements AutoCloseable {
        @Override
        public void close() {
            all.forEach(ElasticGroup::close);
            cluster.close();
        }
    }

    /** Every rank of {@code cluster} as an elastic group over a state of its own, all alike. */
    private Job job(LocalCluster cluster, float fill, long step, String model) {
        List<ElasticGroup> all = new ArrayList<>();
        for (int r = 0; r < cluster.size(); r++) {
            all.add(ElasticGroup.of(cluster.group(r), state(fill, step, model)));
        }
        return new Job(cluster, all);
    }

    /** Every elastic group's boundary at once, until one reports a change (or {@code rounds} pass). */
    private static boolean boundaries(List<ElasticGroup> members, int rounds) throws InterruptedException {
        for (int i = 0; i < rounds; i++) {
            List<Boolean> changed = Flux.fromIterable(members).flatMap(ElasticGroup::boundary).collectList().block(WAIT);
            assertNotNull(changed);
            assertEquals(1, changed.stream().distinct().count(), "members disagree on the boundary: " + changed);
            if (changed.get(0)) {
                return true;
            }
            Thread.sleep(ElasticGroup.POLL_MILLIS / 2);
        }
        return false;
    }

    /** The survivors' collective fails once rank {@code lost} is gone; each recovers to the shrunk generation. */
    private void loseAndRecover(List<ElasticGroup> survivors) {
        Flux.fromIterable(survivors)
                .flatMap(e -> e.group().allReduce(keep(Tensor.fromFloats(new float[] {1f}, 1)), ReduceOp.SUM)
                        .then(Mono.<MeshProcessGroup>error(new AssertionError("the collective with a lost rank succeeded")))
                        .onErrorResume(CollectiveException.class, e::recover))
                .blockLast(WAIT);
    }

    private float sum(List<ElasticGroup> groups) {
        List<Tensor> out = Flux.fromIterable(groups)
                .flatMap(e -> e.group().allReduce(keep(Tensor.fromFloats(new float[] {e.identity() + 1}, 1)), ReduceOp.SUM))
                .collectList().block(WAIT);
        assertNotNull(out);
        float first = out.get(0).toFloatArray()[0];
        out.forEach(t -> assertEquals(first, t.toFloatArray()[0]));
        return first;
    }

    @Test
    void aLostRankRejoinsInPlaceWithTheMembersState() throws Exception {
        LocalCluster cluster = LocalCluster.start(4, options("elastic")).block(ClusterTesting.TIMEOUT);
        List<ElasticGroup> all = new ArrayList<>();
        try {
            List<State> states = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                states.add(state(0.25f, 41, "mlp-v1"));
                all.add(ElasticGroup.of(cluster.group(r), states.get(r)));
            }
            List<GenerationEvent> seen = new ArrayList<>();
            all.get(0).generations().subscribe(seen::add);
            cluster.group(2).close();                                   // rank 2 is lost
            List<ElasticGroup> survivors = List.of(all.get(0), all.get(1), all.get(3));
            loseAndRecover(survivors);
            survivors.forEach(e -> assertEquals(3, e.group().size()));

            State fresh = state(0f, 0, "mlp-v1");
            CompletableFuture<ElasticGroup> joining =
                    ElasticGroup.join(cluster.store(), 2, fresh, options("elastic")).toFuture();
            assertTrue(boundaries(survivors, 100), "the joiner was never admitted");
            ElasticGroup joiner = joining.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            List<ElasticGroup> grown = List.of(all.get(0), all.get(1), joiner, all.get(3));
            for (int r = 0; r < 4; r++) {
                MeshProcessGroup g = grown.get(r).group();
                assertEquals(4, g.size());
                assertEquals(r, g.rank(), "ranks follow the identities: the joiner takes rank 2 again");
                assertEquals(2, g.generation());
                assertEquals("elastic@gen2", g.groupId());
            }
            assertTrue(joiner.joined());
            assertEquals(2, joiner.identity());
            assertEquals("step=41", fresh.restored, "the joiner restored the members' step");
            assertEquals(41, fresh.step);
            assertArrayEquals(states.get(0).weights.toFloatArray(), fresh.weights.toFloatArray(),
                    "the joiner holds the members' parameters");
            assertEquals(Boolean.TRUE, joiner.boundary().block(WAIT),
                    "a joiner's first boundary is the members' one it was admitted at: no collective");
            assertFalse(boundaries(grown, 1), "then the four meet at the next boundary, nobody waiting to join");
            assertEquals(1 + 2 + 3 + 4, sum(grown), 0f);
            assertEquals(List.of(GenerationEvent.Reason.START, GenerationEvent.Reason.SHRINK, GenerationEvent.Reason.GROW),
                    seen.stream().map(GenerationEvent::reason).toList());
            GenerationEvent grow = seen.get(2);
            assertArrayEquals(new int[] {0, 1, 2, 3}, grow.members());
            assertArrayEquals(new int[] {2}, grow.joined());
            assertArrayEquals(new int[] {2}, seen.get(1).lost());
            List<GenerationEvent> joinerSees = joiner.generations().take(1).collectList().block(WAIT);
            assertEquals(List.of(grow), joinerSees, "a joiner's lineage begins with the GROW it joined by");
            all.set(2, joiner);
        } finally {
            all.forEach(ElasticGroup::close);
            cluster.close();
        }
    }

    @Test
    void aJoinerOfAnotherModelIsRefusedAndTheGroupGoesOn() throws Exception {
        try (Job job = job(LocalCluster.start(3, options("refuse")).block(ClusterTesting.TIMEOUT), 1f, 7, "mlp-v1")) {
            LocalCluster cluster = job.cluster();
            List<ElasticGroup> all = job.all();
            CompletableFuture<ElasticGroup> joining =
                    ElasticGroup.join(cluster.store(), -1, state(0f, 0, "mlp-v2"), options("refuse")).toFuture();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!joining.isDone()) {
                assertFalse(boundaries(all, 1), "a refused joiner makes no generation");
                assertTrue(System.nanoTime() < deadline, "the joiner never got its answer");
            }
            try {
                joining.get();
                fail("a joiner of another model was admitted");
            } catch (java.util.concurrent.ExecutionException e) {
                assertTrue(e.getCause() instanceof CollectiveException, e.getCause().toString());
                String m = e.getCause().getMessage();
                assertTrue(m.contains("refused by group 'refuse'") && m.contains("'mlp-v2 ") && m.contains("'mlp-v1 "), m);
            }
            all.forEach(e -> assertEquals(0, e.group().generation()));
            assertEquals(1 + 2 + 3, sum(all), 0f);
        }
    }

    @Test
    void aJoinerStillWaitingWhenTheMembersFinishIsToldTheJobEnded() throws Exception {
        try (Job job = job(LocalCluster.start(2, options("ended")).block(ClusterTesting.TIMEOUT), 1f, 9, "m")) {
            LocalCluster cluster = job.cluster();
            // asks while the members run, but they never reach a boundary again: they finish
            CompletableFuture<ElasticGroup> waiting =
                    ElasticGroup.join(cluster.store(), -1, state(0f, 0, "m"), options("ended")).toFuture();
            Thread.sleep(200);
            assertFalse(waiting.isDone());
            long start = System.nanoTime();
            Flux.fromIterable(job.all()).flatMap(ElasticGroup::finish).blockLast(WAIT);
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof JobEndedException, e.getCause().toString());
            assertTrue(e.getCause().getMessage().contains("the job ended before this process was admitted"), e.getCause().getMessage());
            assertTrue(System.nanoTime() - start < WAIT.toNanos() / 2, "told at once, not after its wait");
            // one that asks afterwards is told too, without a ticket being answered
            reactor.test.StepVerifier.create(ElasticGroup.join(cluster.store(), 1, state(0f, 0, "m"), options("ended")))
                    .expectError(JobEndedException.class)
                    .verify(WAIT);
        }
    }

    @Test
    void aJoinerThatNeverConnectsIsLeftOutAndItsGenerationIsNotReused() throws Exception {
        try (Job job = job(LocalCluster.start(2, options("vanish")).block(ClusterTesting.TIMEOUT), 3f, 5, "m")) {
            LocalCluster cluster = job.cluster();
            List<ElasticGroup> all = job.all();
            String fingerprint = state(0f, 0, "m").fingerprint();
            // asks, is admitted, and never connects (a joiner that died during its join)
            GrowPlanner.request(cluster.store(), "vanish", 9, fingerprint, WAIT).subscribe();
            long t0 = System.nanoTime();
            assertFalse(boundaries(all, 40), "a joiner that never connects makes no generation");
            long waited = System.nanoTime() - t0;
            assertTrue(waited < Duration.ofSeconds(30).toNanos(), "the members waited " + waited / 1_000_000 + " ms");
            all.forEach(e -> assertEquals(2, e.group().size()));
            assertEquals(1 + 2, sum(all), 0f);
            // a real joiner afterwards takes the next generation number, not the failed one's
            State fresh = state(0f, 0, "m");
            CompletableFuture<ElasticGroup> joining =
                    ElasticGroup.join(cluster.store(), -1, fresh, options("vanish")).toFuture();
            assertTrue(boundaries(all, 100));
            ElasticGroup joiner = joining.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            all.add(joiner);
            assertEquals(2, joiner.identity(), "the next unused identity");
            all.forEach(e -> assertEquals(2, e.group().generation(), "generation 1 was burnt by the failed join"));
            assertEquals(5, fresh.step);
            List<GenerationEvent> events = all.get(0).generations().take(2).collectList().block(WAIT);
            assertNotNull(events);
            assertEquals(new GenerationEvent("vanish@gen2", 2, GenerationEvent.Reason.GROW, new int[] {0, 1, 2},
                    new int[0], new int[] {2}), events.get(1));
        }
    }

    @Test
    void twoRanksLostAtOnceComeBackTogetherAtOneBoundary() throws Exception {
        try (Job job = job(LocalCluster.start(5, options("two")).block(ClusterTesting.TIMEOUT), 2f, 11, "m")) {
            LocalCluster cluster = job.cluster();
            List<ElasticGroup> all = job.all();
            cluster.group(3).close();
            cluster.group(4).close();                                   // two at once: 3 of 5 is still a majority
            List<ElasticGroup> survivors = new ArrayList<>(all.subList(0, 3));
            loseAndRecover(survivors);
            survivors.forEach(e -> assertEquals(3, e.group().size()));
            State s3 = state(0f, 0, "m");
            State s4 = state(0f, 0, "m");
            CompletableFuture<ElasticGroup> j4 = ElasticGroup.join(cluster.store(), 4, s4, options("two")).toFuture();
            CompletableFuture<ElasticGroup> j3 = ElasticGroup.join(cluster.store(), 3, s3, options("two")).toFuture();
            // both asked before the members look: one decision admits both (else the second comes at a later boundary)
            while (!(ticketsTaken(cluster, "two") >= 2)) {
                Thread.sleep(10);
            }
            Thread.sleep(ElasticGroup.POLL_MILLIS);
            assertTrue(boundaries(survivors, 100));
            List<ElasticGroup> grown = new ArrayList<>(survivors);
            grown.add(j3.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            grown.add(j4.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            all.clear();
            all.addAll(grown);
            for (int r = 0; r < 5; r++) {
                assertEquals(r, grown.get(r).group().rank(), "identity " + grown.get(r).identity());
                assertEquals(5, grown.get(r).group().size());
            }
            assertEquals(11, s3.step);
            assertEquals(11, s4.step);
            assertEquals(1 + 2 + 3 + 4 + 5, sum(grown), 0f);
        }
    }

    @Test
    void aMemberLostAtTheBoundaryIsShrunkOutThenTheJoinerIsAdmitted() throws Exception {
        try (Job job = job(LocalCluster.start(4, options("during")).block(ClusterTesting.TIMEOUT), 4f, 3, "m")) {
            LocalCluster cluster = job.cluster();
            List<ElasticGroup> all = job.all();
            State fresh = state(0f, 0, "m");
            CompletableFuture<ElasticGroup> joining =
                    ElasticGroup.join(cluster.store(), -1, fresh, options("during")).toFuture();
            while (ticketsTaken(cluster, "during") < 1) {
                Thread.sleep(10);
            }
            cluster.group(2).close();                                   // a member dies while a joiner waits
            List<ElasticGroup> survivors = List.of(all.get(0), all.get(1), all.get(3));
            List<Throwable> failed = Flux.fromIterable(survivors)
                    .flatMap(e -> e.boundary().then(Mono.<Throwable>empty()).onErrorResume(Mono::just))
                    .collectList().block(WAIT);
            assertNotNull(failed);
            assertEquals(3, failed.size(), "the boundary's broadcast fails on every survivor: " + failed);
            Flux.fromIterable(survivors).zipWithIterable(failed).flatMap(p -> p.getT1().recover(p.getT2())).blockLast(WAIT);
            assertTrue(boundaries(survivors, 100));
            ElasticGroup joiner = joining.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            all.set(2, joiner);
            assertEquals(4, joiner.identity(), "identity 2 is gone from the members, but the joiner asked for any: the next unused");
            assertEquals(3, joiner.group().rank());
            assertEquals(4, joiner.group().size());
            assertEquals(3, fresh.step);
            List<ElasticGroup> grown = List.of(all.get(0), all.get(1), all.get(3), joiner);
            assertEquals(1 + 2 + 4 + 5, sum(grown), 0f);
        }
    }

    @Test
    void aJoinerThatStallsInTheStateTransferIsShrunkOutAfterTheDeadline() throws Exception {
        GroupOptions o = options("stall").withTimeout(Duration.ofSeconds(3)).withConnectTimeout(Duration.ofSeconds(6));
        LocalCluster cluster = LocalCluster.start(2, o).block(ClusterTesting.TIMEOUT);
        List<ElasticGroup> all = new ArrayList<>();
        List<MeshProcessGroup> stalled = new ArrayList<>();
        try {
            for (int r = 0; r < 2; r++) {
                all.add(ElasticGroup.of(cluster.group(r), state(6f, 21, "m")));
            }
            // a joiner that is admitted and connects, then never takes part in the state transfer
            GrowPlanner.request(cluster.store(), "stall", -1, state(0f, 0, "m").fingerprint(), WAIT)
                    .flatMap(a -> MeshProcessGroup.connect(new io.reactivecollectives.core.rendezvous.PrefixStore(
                                    "rc/" + a.plan().groupId() + "/", cluster.store()), a.plan().rankOf(a.identity()),
                            a.plan().size(), o.withGroupId(a.plan().groupId()), a.plan().job()))
                    .subscribe(stalled::add);
            while (ticketsTaken(cluster, "stall") < 1) {
                Thread.sleep(10);
            }
            Thread.sleep(ElasticGroup.POLL_MILLIS);
            long t0 = System.nanoTime();
            List<Throwable> failed = Flux.fromIterable(all)
                    .flatMap(e -> e.boundary().then(Mono.<Throwable>empty()).onErrorResume(Mono::just))
                    .collectList().block(WAIT);
            assertNotNull(failed);
            assertEquals(2, failed.size(), "the transfer to a stalled joiner ends in an error on both members: " + failed);
            failed.forEach(e -> assertTrue(e instanceof CollectiveException, e.toString()));
            Flux.fromIterable(all).zipWithIterable(failed).flatMap(p -> p.getT1().recover(p.getT2())).blockLast(WAIT);
            long took = System.nanoTime() - t0;
            assertTrue(took < Duration.ofSeconds(30).toNanos(), "the group was stuck " + took / 1_000_000 + " ms");
            all.forEach(e -> assertEquals(2, e.group().size(), "the stalled joiner is left out"));
            assertEquals(1 + 2, sum(all), 0f);
        } finally {
            all.forEach(ElasticGroup::close);
            stalled.forEach(MeshProcessGroup::close);
            cluster.close();
        }
    }

    /** A store that can be taken away: every call fails once {@link #lose()} was called. */
    static final class LosableStore implements io.reactivecollectives.core.rendezvous.Store {
        private final io.reactivecollectives.core.rendezvous.Store inner = new io.reactivecollectives.core.rendezvous.HashStore();
        private volatile boolean lost;

        void lose() {
            lost = true;
        }

        private <T> Mono<T> call(Mono<T> m) {
            return Mono.defer(() -> lost ? Mono.error(new IllegalStateException("the store's host is gone")) : m);
        }

        @Override
        public Duration timeout() {
            return inner.timeout();
        }

        @Override
        public Mono<Void> set(String key, byte[] value) {
            return call(inner.set(key, value));
        }

        @Override
        public Mono<byte[]> get(String key, Duration timeout) {
            return call(inner.get(key, timeout));
        }

        @Override
        public Mono<Long> add(String key, long delta) {
            return call(inner.add(key, delta));
        }

        @Override
        public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
            return call(inner.compareSet(key, expected, desired));
        }

        @Override
        public Mono<Void> await(List<String> keys, Duration timeout) {
            return call(inner.await(keys, timeout));
        }

        @Override
        public Mono<Boolean> check(List<String> keys) {
            return call(inner.check(keys));
        }

        @Override
        public Mono<Boolean> delete(String key) {
            return call(inner.delete(key));
        }

        @Override
        public Mono<Long> numKeys() {
            return call(inner.numKeys());
        }

        @Override
        public Mono<List<byte[]>> multiGet(List<String> keys) {
            return call(inner.multiGet(keys));
        }

        @Override
        public Mono<Void> multiSet(java.util.Map<String, byte[]> entries) {
            return call(inner.multiSet(entries));
        }

        @Override
        public Mono<Long> append(String key, byte[] value) {
            return call(inner.append(key, value));
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void withTheStoreLostTheMembersTrainOnAdmittingNobody() throws Exception {
        LosableStore store = new LosableStore();
        try (Job job = job(LocalCluster.start(2, options("nostore"), o -> store).block(ClusterTesting.TIMEOUT), 1f, 0, "m")) {
            LocalCluster cluster = job.cluster();
            List<ElasticGroup> all = job.all();
            assertFalse(boundaries(all, 1));
            store.lose();
            Thread.sleep(ElasticGroup.POLL_MILLIS * 2);        // the next boundary asks the store again
            for (int i = 0; i < 5; i++) {
                assertFalse(boundaries(all, 1), "a boundary without a store admits nobody and fails nothing");
                assertEquals(1 + 2, sum(all), 0f);
                Thread.sleep(ElasticGroup.POLL_MILLIS);
            }
        }
    }

    private static long ticketsTaken(LocalCluster cluster, String group) {
        Long t = GrowPlanner.tickets(cluster.store(), group).block(WAIT);
        return t == null ? 0 : t;
    }
}
