package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An orderly close right after a collective does not fail the other ranks' copy of it: a closing
 * rank tells its peers it leaves (GOODBYE, with the collectives it finished), and a peer that is
 * done with it is not failed. Later collectives that need the rank fail naming its departure.
 */
class OrderlyCloseTest {

    private static final int ROUNDS = 8;

    @ParameterizedTest(name = "{0} floats")
    @ValueSource(ints = {256, 1 << 18})   // recursive doubling, ring
    void everyRankClosingRightAfterItsAllReduceFailsNobody(int n) {
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            LocalCluster cluster = LocalCluster.start(4, GroupOptions.defaults().withGroupId("bye-" + n + "-" + round))
                    .block(ClusterTesting.TIMEOUT);
            try {
                List<Mono<String>> ranks = new ArrayList<>();
                for (int r = 0; r < 4; r++) {
                    MeshProcessGroup g = cluster.group(r);
                    Tensor t = ClusterTesting.filled(DType.FLOAT32, n, r + 1);
                    ranks.add(g.allReduce(t, ReduceOp.SUM)
                            .map(x -> x.getDouble(n - 1) == 10.0 ? "ok" : "wrong " + x.getDouble(n - 1))
                            .onErrorResume(e -> Mono.just(e.toString()))
                            .doFinally(s -> {
                                g.close();     // at once, as a program that is done
                                t.release();
                            }));
                }
                List<String> res = Flux.merge(ranks).collectList().block(Duration.ofSeconds(30));
                for (String s : res) {
                    if (!s.equals("ok")) {
                        failures.add("round " + round + ": " + s);
                    }
                }
            } finally {
                cluster.close();
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + 4 * ROUNDS + " all-reduces failed: " + failures);
    }

    @ParameterizedTest(name = "world {0}")
    @ValueSource(ints = {2, 3})
    void aCollectiveAfterAPeerLeftFailsNamingTheDeparture(int world) {
        ClusterTesting.withCluster(world, GroupOptions.defaults().withGroupId("left"), cluster -> {
            cluster.group(world - 1).close();
            Tensor t = ClusterTesting.filled(DType.FLOAT32, 16, 1);
            try {
                Throwable e = Mono.delay(Duration.ofMillis(200)).then(cluster.group(0).allReduce(t, ReduceOp.SUM,
                        CollectiveOptions.timeout(Duration.ofSeconds(20)))).materialize().block(Duration.ofSeconds(30))
                        .getThrowable();
                PeerFailureException pf = assertInstanceOf(PeerFailureException.class, e);
                assertEquals(world - 1, pf.peer());
                assertTrue(e.getMessage().contains("peer " + (world - 1) + " left the group"), e.getMessage());
            } finally {
                t.release();
            }
            return null;
        });
    }

    /**
     * A rank whose collective failed because another peer went silent tells its peers so (ABORT),
     * then leaves. A rank that had finished that collective and waits in the next one must fail naming
     * the silent peer, the first and precise cause, not the departure it led to: the SIGSTOP test saw
     * a rank whose own heartbeat watch fired 100 ms after its neighbour's fail with "peer 2 left the
     * group". Before and after the collective starts.
     */
    @ParameterizedTest(name = "leaves {0} ms before the next collective")
    @ValueSource(ints = {0, 300})
    void aPeerThatLeftAfterReportingAFailureIsNotTheCauseNamed(int leadMs) {
        ClusterTesting.withCluster(3, GroupOptions.defaults().withGroupId("reported-" + leadMs), cluster -> {
            Tensor t = ClusterTesting.filled(DType.FLOAT32, 16, 1);
            try {
                Flux.range(0, 3).flatMap(r -> cluster.group(r).allReduce(ClusterTesting.filled(DType.FLOAT32, 16, 1),
                        ReduceOp.SUM).doOnNext(Tensor::release)).blockLast(Duration.ofSeconds(30));
                String finding = "peer 2 unresponsive: nothing heard for 0.5 s (peer 2 missed 5 heartbeats)";
                Mono<Void> report = Mono.fromRunnable(() -> {
                    aborts(cluster.group(1)).tellPeers(0, new PeerFailureException("allReduce", 1, 0, 2, finding, null));
                    cluster.group(1).close();
                });
                Mono<Tensor> next = cluster.group(0).allReduce(t, ReduceOp.SUM, CollectiveOptions.timeout(Duration.ofSeconds(20)));
                Mono<Tensor> run = leadMs > 0 ? report.then(Mono.delay(Duration.ofMillis(leadMs))).then(next)
                        : Mono.when(next.then(), Mono.delay(Duration.ofMillis(200)).then(report)).then(Mono.<Tensor>empty());
                Throwable e = run.materialize().block(Duration.ofSeconds(30)).getThrowable();
                PeerFailureException pf = assertInstanceOf(PeerFailureException.class, e);
                assertEquals(2, pf.peer(), e.getMessage());
                assertTrue(e.getMessage().contains(finding + " (reported by rank 1; then peer 1 left the group"), e.getMessage());
            } finally {
                t.release();
            }
            return null;
        });
    }

    private static io.reactivecollectives.transport.failure.AbortProtocol aborts(MeshProcessGroup g) {
        try {
            java.lang.reflect.Field f = MeshProcessGroup.class.getDeclaredField("aborts");
            f.setAccessible(true);
            return (io.reactivecollectives.transport.failure.AbortProtocol) f.get(g);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
