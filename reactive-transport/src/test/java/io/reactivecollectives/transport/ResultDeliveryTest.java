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
 * Liveness does not depend on user code: by default results are delivered on the library's result
 * threads, so a long computation chained after a collective does not hold up the network threads
 * (heartbeats, other collectives); {@link ResultDelivery#EVENT_LOOP} delivers on the event loop.
 */
class ResultDeliveryTest {

    /** Heartbeats every 100 ms, dead after 8 silent intervals: 0.8 s of a blocked loop would be fatal. */
    private static GroupOptions options(String id) {
        return GroupOptions.defaults().withGroupId(id).withHeartbeat(Duration.ofMillis(100), 8);
    }

    @Test
    void aLongComputationAfterACollectiveDoesNotStopTheNetwork() {
        ClusterTesting.withCluster(2, options("results-busy"), cluster -> {
            List<String> res = cluster.run(g -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 1024, 1);
                return g.allReduce(t, ReduceOp.SUM)
                        .map(x -> {
                            if (g.rank() == 0) {
                                long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
                                while (System.nanoTime() < end) {
                                    Thread.onSpinWait();   // a user's heavy step, 3 times the silence a peer tolerates
                                }
                            }
                            return Thread.currentThread().getName();
                        })
                        .flatMap(thread -> g.barrier().thenReturn(thread))
                        .doFinally(s -> t.release());
            }).block(ClusterTesting.TIMEOUT);
            for (String thread : res) {
                assertTrue(thread.startsWith("rc-results"), thread);
            }
            return null;
        });
    }

    @Test
    void eventLoopDeliveryRunsChainedCodeOnTheNetworkThread() {
        ClusterTesting.withCluster(2, options("results-loop").withResultDelivery(ResultDelivery.EVENT_LOOP), cluster -> {
            List<String> res = cluster.run(g -> {
                Tensor t = ClusterTesting.filled(DType.FLOAT32, 16, 1);
                return g.allReduce(t, ReduceOp.SUM).map(x -> Thread.currentThread().getName())
                        .doFinally(s -> t.release());
            }).block(ClusterTesting.TIMEOUT);
            for (String thread : res) {
                assertTrue(!thread.startsWith("rc-results"), thread);
            }
            assertEquals(ResultDelivery.LIBRARY_THREADS, GroupOptions.defaults().resultDelivery());
            return null;
        });
    }

    @Test
    void receivesDeliverOnTheResultThreadsToo() {
        ClusterTesting.withCluster(2, options("results-p2p"), cluster -> {
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
