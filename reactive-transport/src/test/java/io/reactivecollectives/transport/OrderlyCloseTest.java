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
}
