package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Liveness does not depend on user code: heartbeats have connections and an event loop of their
 * own, so a long computation chained after a collective fails nothing, whether results are
 * delivered on the event loop (the default) or on the library's result threads.
 */
class ResultDeliveryTest {

    /** Heartbeats every 100 ms, dead after 8 silent intervals: 0.8 s of a blocked loop would be fatal. */
    private static GroupOptions options(String id) {
        return GroupOptions.defaults().withGroupId(id).withHeartbeat(Duration.ofMillis(100), 8);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(ResultDelivery.class)
    void aLongComputationAfterACollectiveDoesNotStopTheNetwork(ResultDelivery delivery) {
        GroupOptions opts = options("results-busy-" + delivery);
        if (delivery != GroupOptions.defaults().resultDelivery()) {
            opts = opts.withResultDelivery(delivery);
        }
        ClusterTesting.withCluster(2, opts, cluster -> {
            List<String> res = cluster.run(g -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 1024, 1);
                return g.allReduce(t, ReduceOp.SUM)
                        .map(x -> {
                            if (g.rank() == 0) {
                                long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
                                long spins = 0;
                                while (System.nanoTime() < end) {
                                    spins++;   // a user's heavy step, 3 times the silence a peer tolerates
                                }
                                assertTrue(spins > 0);
                            }
                            return Thread.currentThread().getName();
                        })
                        .flatMap(thread -> g.barrier().thenReturn(thread))
                        .doFinally(s -> t.release());
            }).block(ClusterTesting.TIMEOUT);
            for (String thread : res) {
                assertEquals(delivery == ResultDelivery.LIBRARY_THREADS, thread.startsWith("rc-results"), thread);
            }
            return null;
        });
    }

    @Test
    void blockingOnTheEventLoopFailsAtOnceInsteadOfHanging() {
        ClusterTesting.withCluster(2, options("results-block"), cluster -> {
            List<String> res = cluster.run(g -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 16, 1);
                // rank 1 joins late, so rank 0's result is completed by a frame arriving on its event loop
                Mono<Void> late = g.rank() == 1 ? Mono.delay(Duration.ofMillis(200)).then() : Mono.empty();
                return late.then(g.allReduce(t, ReduceOp.SUM))
                        .map(x -> {
                            String thread = Thread.currentThread().getName();
                            try {
                                Mono.never().block(Duration.ofSeconds(5));
                                return thread + ": blocked";
                            } catch (IllegalStateException e) {
                                return thread + ": " + e.getMessage();
                            }
                        })
                        .doFinally(s -> t.release());
            }).block(ClusterTesting.TIMEOUT);
            assertTrue(res.get(0).startsWith("rc-io") && res.get(0).contains("not supported in thread rc-io"), res.get(0));
            return null;
        });
    }

    @Test
    void eventLoopDeliveryRunsChainedCodeOnTheNetworkThread() {
        ClusterTesting.withCluster(2, options("results-loop"), cluster -> {
            List<String> res = cluster.run(g -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 16, 1);
                return g.allReduce(t, ReduceOp.SUM).map(x -> Thread.currentThread().getName())
                        .doFinally(s -> t.release());
            }).block(ClusterTesting.TIMEOUT);
            for (String thread : res) {
                assertTrue(!thread.startsWith("rc-results"), thread);
            }
            assertEquals(ResultDelivery.EVENT_LOOP, GroupOptions.defaults().resultDelivery());
            return null;
        });
    }

    @Test
    void receivesDeliverOnTheResultThreadsToo() {
        ClusterTesting.withCluster(2, options("results-p2p").withResultDelivery(ResultDelivery.LIBRARY_THREADS), cluster -> {
            Tensor a = ClusterTesting.filled(DType.FLOAT32, 16, 7);
            Tensor b = ClusterTesting.filled(DType.FLOAT32, 16, 0);
            try {
                String thread = Mono.zip(cluster.group(0).send(a, 1, 3).thenReturn("sent"),
                                cluster.group(1).recv(b, 0, 3).map(x -> Thread.currentThread().getName()))
                        .map(reactor.util.function.Tuple2::getT2)
                        .block(ClusterTesting.TIMEOUT);
                assertEquals(7.0, b.getDouble(15));
                assertTrue(thread.startsWith("rc-results"), thread);
            } finally {
                a.release();
                b.release();
            }
            return null;
        });
    }
}
