package io.reactivecollectives.transport;

import io.reactivecollectives.core.P2POp;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * batchSendRecv checks every op before it issues any: a receive whose tensor an in-flight
 * collective of this rank uses is refused before the batch's sends go out, so no message of a
 * failed batch is left for the peer's next receive.
 */
class BatchRecvClaimTest {

    @Test
    void aBatchWhoseReceiveTensorIsInUseSendsNothing() {
        ClusterTesting.withCluster(2, GroupOptions.defaults().withGroupId("batch-recv-claim"), cluster -> {
            MeshProcessGroup g0 = cluster.group(0);
            MeshProcessGroup g1 = cluster.group(1);
            Tensor t0 = Tensor.fromInts(new int[] {1, 1});
            Tensor t1 = Tensor.fromInts(new int[] {2, 2});
            Tensor stale = Tensor.fromInts(new int[] {7, 7});
            Tensor fresh = Tensor.fromInts(new int[] {3, 4});
            Tensor got = Tensor.zeros(io.reactivecollectives.core.DType.INT32, 2);
            try {
                Mono<Tensor> waiting = g0.allReduce(t0, ReduceOp.SUM).cache();
                waiting.subscribe(x -> { }, e -> { });     // in flight on rank 0: rank 1 has not called it yet
                Throwable refused = g0.batchSendRecv(List.of(P2POp.send(stale, 1, 5), P2POp.recv(t0, 1, 5)))
                        .then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(ClusterTesting.TIMEOUT);
                assertInstanceOf(IllegalArgumentException.class, refused, String.valueOf(refused));
                assertTrue(refused.getMessage().contains("in use by allReduce"), refused.getMessage());
                // before: the batch's send had gone out, and this receive got [7, 7] instead of [3, 4]
                Mono.when(g0.send(fresh, 1, 5), g1.recv(got, 0, 5)).block(ClusterTesting.TIMEOUT);
                assertArrayEquals(new int[] {3, 4}, got.toIntArray(), Arrays.toString(got.toIntArray()));
                Mono.when(waiting, g1.allReduce(t1, ReduceOp.SUM)).block(ClusterTesting.TIMEOUT);
                assertArrayEquals(new int[] {3, 3}, t0.toIntArray());
            } finally {
                for (Tensor t : List.of(t0, t1, stale, fresh, got)) {
                    t.release();
                }
            }
            return null;
        });
    }
}
