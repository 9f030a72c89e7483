package io.reactivecollectives.transport;

import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broadcast's root completes once the receivers confirmed that the data agreed with their
 * collective: the receipt leaves a receiver when its frame is checked, not after whatever the
 * receiver's chain does with the result (here 600 ms of computing on the thread that delivered it).
 */
class ReceiptTimingTest {

    private static final long RECEIVER_BUSY_MS = 600;

    @Test
    void theRootDoesNotWaitForWhatTheReceiverDoesWithTheData() {
        ClusterTesting.withCluster(2, GroupOptions.defaults().withGroupId("receipt-timing"), cluster -> {
            Tensor[] ts = {Tensor.fromFloats(new float[] {1, 2, 3, 4}), Tensor.fromFloats(new float[4])};
            try {
                // the receiver's collective is open before the root sends (the frame finds it waiting)
                StepVerifier.create(cluster.run(g -> g.rank() == 0
                                ? Mono.delay(Duration.ofMillis(300)).then(Mono.defer(() -> {
                                    long t0 = System.nanoTime();
                                    return g.broadcast(ts[0], 0).map(x -> (System.nanoTime() - t0) / 1_000_000L);
                                }))
                                : g.broadcast(ts[1], 0).map(x -> {
                                    long until = System.nanoTime() + RECEIVER_BUSY_MS * 1_000_000L;
                                    long spins = 0;
                                    while (System.nanoTime() < until) {
                                        spins++;   // computing, not blocking (BlockHound watches this thread)
                                    }
                                    return spins > 0 ? -1L : -2L;
                                })))
                        .assertNext((List<Long> r) -> {
                            assertTrue(r.get(0) < RECEIVER_BUSY_MS / 2, "the root's broadcast took " + r.get(0)
                                    + " ms: it waited for the receiver's own work of " + RECEIVER_BUSY_MS + " ms");
                            assertEquals(4.0, ts[1].getDouble(3));
                        })
                        .expectComplete()
                        .verify(ClusterTesting.TIMEOUT);
            } finally {
                ts[0].release();
                ts[1].release();
            }
            return null;
        });
    }
}
