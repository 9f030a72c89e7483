package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ElasticGroup#fromEnvironment} as {@code collectives-run --max-restarts} starts ranks: the
 * store served outside the ranks ({@code RC_AGENT_STORE=1}); the first processes connect as
 * members; a process started again for a lost rank joins, whether the launcher says it was
 * restarted ({@code RC_RESTART_COUNT}) or it finds the job running (a host's agent started again);
 * a process of another job that meets in the same store is refused, not merged into the running
 * job, and {@code RC_GROUP_ID} keeps jobs sharing a store apart (an operator's audit: a second job
 * grew the first, and a new job on a finished job's store did nothing and exited 0).
 */
class ElasticEnvironmentTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private final List<Tensor> made = new ArrayList<>();
    private TcpStoreServer server;

    @AfterEach
    void release() {
        made.forEach(Tensor::release);
        if (server != null) {
            server.close();
        }
    }

    private Map<String, String> env(int rank, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT",
                Integer.toString(server.port()), "RANK", Integer.toString(rank), "WORLD_SIZE", "3", "LOCAL_RANK",
                Integer.toString(rank), EnvRendezvous.AGENT_STORE_RC_ENV, "1"));
        env.putAll(extra);
        return env;
    }

    private ElasticGroupTest.State state(float fill) {
        ElasticGroupTest.State s = new ElasticGroupTest.State(fill, 9, "env");
        made.add(s.weights);
        return s;
    }

    private static GroupOptions options() {
        return GroupOptions.defaults().withGroupId("env").withTimeout(Duration.ofSeconds(10))
                .withConnectTimeout(Duration.ofSeconds(20));
    }

    private static boolean boundary(List<ElasticGroup> members) {
        List<Boolean> changed = Flux.fromIterable(members).flatMap(ElasticGroup::boundary).collectList().block(WAIT);
        assertNotNull(changed);
        return changed.get(0);
    }

    private void rejoin(Map<String, String> restartEnv) throws Exception {
        server = TcpStoreServer.builder().host("127.0.0.1").port(0).start().block(WAIT);
        assertNotNull(server);
        List<ElasticGroup> members = Flux.range(0, 3)
                .flatMap(r -> ElasticGroup.fromEnvironment(env(r, Map.of()), state(1.5f), options()))
                .collectSortedList((a, b) -> Integer.compare(a.group().rank(), b.group().rank())).block(WAIT);
        assertNotNull(members);
        List<ElasticGroup> open = new ArrayList<>(members);
        try {
            members.forEach(e -> assertFalse(e.joined()));
            members.get(2).close();                                   // rank 2's process is lost
            List<ElasticGroup> survivors = List.of(members.get(0), members.get(1));
            Flux.fromIterable(survivors)
                    .flatMap(e -> e.group().allReduce(keep(Tensor.fromFloats(new float[] {1f}, 1)), ReduceOp.SUM)
                            .then(Mono.<MeshProcessGroup>empty())
                            .onErrorResume(CollectiveException.class, e::recover))
                    .blockLast(WAIT);
            ElasticGroupTest.State fresh = state(0f);
            CompletableFuture<ElasticGroup> again =
                    ElasticGroup.fromEnvironment(env(2, restartEnv), fresh, options()).toFuture();
            boolean grown = false;
            for (int i = 0; i < 200 && !grown; i++) {
                grown = boundary(survivors);
                Thread.sleep(20);
            }
            assertTrue(grown, "the process started again was never admitted");
            ElasticGroup back = again.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            open.add(back);
            assertTrue(back.joined());
            assertEquals(2, back.group().rank());
            assertEquals(3, back.group().size());
            assertEquals(9, fresh.step);
            assertArrayEquals(state(1.5f).weights.toFloatArray(), fresh.weights.toFloatArray(),
                    "the process started again holds the members' state");
            List<Tensor> sums = Flux.just(members.get(0), members.get(1), back)
                    .flatMap(e -> e.group().allReduce(keep(Tensor.fromFloats(new float[] {1f}, 1)), ReduceOp.SUM))
                    .collectList().block(WAIT);
            assertNotNull(sums);
            sums.forEach(t -> assertEquals(3f, t.toFloatArray()[0]));
        } finally {
            open.forEach(ElasticGroup::close);
        }
    }

    /** Starts the job's {@code size} first processes (environment {@code extra} on each) and connects them. */
    private List<ElasticGroup> start(int size, Map<String, String> extra, GroupOptions options) {
        List<ElasticGroup> members = Flux.range(0, size)
                .flatMap(r -> {
                    Map<String, String> e = new HashMap<>(extra);
                    e.put("WORLD_SIZE", Integer.toString(size));
                    return ElasticGroup.fromEnvironment(env(r, e), state(1.5f), options);
                })
                .collectSortedList((a, b) -> Integer.compare(a.group().rank(), b.group().rank())).block(WAIT);
        assertNotNull(members);
        return members;
    }

    private void startServer() {
        server = TcpStoreServer.builder().host("127.0.0.1").port(0).start().block(WAIT);
        assertNotNull(server);
    }

    /** Runs the members' boundaries while {@code pending} waits, for at most {@code rounds} rounds. */
    private static void boundariesWhile(List<ElasticGroup> members, CompletableFuture<?> pending, int rounds)
            throws InterruptedException {
        for (int i = 0; i < rounds && !pending.isDone(); i++) {
            boundary(members);
            Thread.sleep(20);
        }
    }

    private static Throwable failure(CompletableFuture<ElasticGroup> pending, List<ElasticGroup> open) throws Exception {
        try {
            ElasticGroup admitted = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            open.add(admitted);
            throw new AssertionError("admitted as identity " + admitted.identity() + ", rank " + admitted.group().rank()
                    + " of " + admitted.group().size() + " of the running job");
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void aProcessOfAJobWithAnotherWorldSizeIsRefusedNotGivenAFreeIdentity() throws Exception {
        startServer();
        List<ElasticGroup> members = start(3, Map.of(), options());
        List<ElasticGroup> open = new ArrayList<>(members);
        try {
            // job B (WORLD_SIZE=2) on job A's store, same group id and environment: its rank 0 asks for
            // identity 0, held by a member of A
            CompletableFuture<ElasticGroup> other =
                    ElasticGroup.fromEnvironment(env(0, Map.of("WORLD_SIZE", "2")), state(0f), options()).toFuture();
            boundariesWhile(members, other, 150);
            Throwable error = failure(other, open);
            assertTrue(error instanceof IllegalStateException, error::toString);
            String m = error.getMessage();
            assertTrue(m.contains("join of group 'env' as rank 0 of 2") && m.contains("WORLD_SIZE 3")
                    && m.contains("RC_GROUP_ID"), m);
            members.forEach(e -> assertEquals(3, e.group().size(), "the running job did not grow"));
        } finally {
            open.forEach(ElasticGroup::close);
        }
    }

    @Test
    void aNewJobOnAStoreWhoseJobFinishedFailsInsteadOfDoingNothing() throws Exception {
        startServer();
        List<ElasticGroup> members = start(3, Map.of(), options());
        Flux.fromIterable(members).flatMap(ElasticGroup::finish).blockLast(WAIT);
        members.forEach(ElasticGroup::close);
        List<ElasticGroup> open = new ArrayList<>();
        try {
            Throwable error = failure(ElasticGroup.fromEnvironment(env(0, Map.of()), state(0f), options()).toFuture(), open);
            assertTrue(error instanceof IllegalStateException, error::toString);
            assertTrue(error.getMessage().contains("holds a finished job of group 'env'")
                    && error.getMessage().contains("fresh store or another RC_GROUP_ID"), error.getMessage());
            // a rank the launcher restarted too late is still told the job ended
            Throwable late = failure(ElasticGroup.fromEnvironment(env(2, Map.of(EnvRendezvous.RESTART_COUNT_ENV, "1")),
                    state(0f), options()).toFuture(), open);
            assertTrue(late instanceof io.reactivecollectives.core.JobEndedException, late::toString);
        } finally {
            open.forEach(ElasticGroup::close);
        }
    }

    @Test
    void rcGroupIdKeepsTwoJobsOnOneStoreApart() throws Exception {
        startServer();
        GroupOptions unnamed = GroupOptions.defaults().withTimeout(Duration.ofSeconds(10))
                .withConnectTimeout(Duration.ofSeconds(20));
        List<ElasticGroup> a = start(3, Map.of("RC_GROUP_ID", "job-a"), unnamed);
        List<ElasticGroup> open = new ArrayList<>(a);
        try {
            List<ElasticGroup> b = start(2, Map.of("RC_GROUP_ID", "job-b"), unnamed);
            open.addAll(b);
            a.forEach(e -> assertEquals("job-a", e.group().groupId()));
            b.forEach(e -> {
                assertEquals("job-b", e.group().groupId());
                assertEquals(2, e.group().size());
                assertFalse(e.joined());
            });
            List<Tensor> sums = Flux.fromIterable(b)
                    .flatMap(e -> e.group().allReduce(keep(Tensor.fromFloats(new float[] {1f}, 1)), ReduceOp.SUM))
                    .collectList().block(WAIT);
            assertNotNull(sums);
            sums.forEach(t -> assertEquals(2f, t.toFloatArray()[0]));
            a.forEach(e -> assertEquals(3, e.group().size()));
            // the program's own group id wins over the variable
            assertEquals("mine", ProcessGroups.fromSettings(unnamed.withGroupId("mine"), Map.of("RC_GROUP_ID", "job-b")).groupId());
        } finally {
            open.forEach(ElasticGroup::close);
        }
    }

    private Tensor keep(Tensor t) {
        made.add(t);
        return t;
    }

    @Test
    void aRestartedRankJoinsTheRunningGroup() throws Exception {
        rejoin(Map.of(EnvRendezvous.RESTART_COUNT_ENV, "1"));
    }

    @Test
    void aProcessStartedAgainWithoutARestartCountFindsTheJobRunningAndJoins() throws Exception {
        rejoin(Map.of());
    }
}
