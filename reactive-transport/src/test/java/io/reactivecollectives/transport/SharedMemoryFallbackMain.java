package io.reactivecollectives.transport;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

import java.time.Duration;

/** Two local ranks in this JVM, one all-reduce; prints its result and how rank 0 reaches rank 1. */
public final class SharedMemoryFallbackMain {

    public static void main(String[] args) {
        LocalCluster cluster = LocalCluster.start(2, GroupOptions.defaults().withGroupId("shm-fallback"))
                .block(Duration.ofSeconds(30));
        try {
            Tensor[] ts = {Tensor.fromFloats(new float[] {1f}, 1), Tensor.fromFloats(new float[] {2f}, 1)};
            cluster.run(g -> g.allReduce(ts[g.rank()], ReduceOp.SUM)).block(Duration.ofSeconds(30));
            System.out.println("RESULT " + ts[0].toFloatArray()[0] + " via " + cluster.groups().get(0).transportTo(1));
            for (Tensor t : ts) {
                t.release();
            }
        } finally {
            cluster.close();
        }
    }
}
