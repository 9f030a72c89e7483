package com.example.consumer;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.testkit.GuardsExtension;
import io.reactivecollectives.testkit.LocalClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A user's test: 4 ranks in this JVM average a gradient; no buffer may leak, no event loop block. */
@ExtendWith(GuardsExtension.class)
class AllReduceTest {

    @RegisterExtension
    static final LocalClusterExtension CLUSTER = LocalClusterExtension.ranks(4);

    @Test
    void averagesAGradientOverFourRanks() {
        List<Tensor> grads = CLUSTER.run(group -> {
            float r = group.rank();
            return group.allReduce(Tensor.fromFloats(new float[] {r, 2 * r, 1}), ReduceOp.AVG);
        });
        try {
            assertEquals(4, grads.size());
            for (Tensor g : grads) {
                assertArrayEquals(new float[] {1.5f, 3f, 1f}, g.toFloatArray(), 1e-6f);
            }
        } finally {
            grads.forEach(Tensor::release);
        }
    }

    @Test
    void broadcastsFromRankZeroAsAStepVerifierSeesIt() {
        // reactor-test comes with the test kit, at the version the BOM manages
        StepVerifier.create(CLUSTER.cluster().run(group -> group.broadcast(
                        Tensor.fromFloats(new float[] {group.rank() == 0 ? 42f : 0f}), 0)
                        .map(t -> {
                            try {
                                return t.toFloatArray()[0];
                            } finally {
                                t.release();
                            }
                        })))
                .expectNext(List.of(42f, 42f, 42f, 42f))
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }
}
