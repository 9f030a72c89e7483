package io.reactivecollectives.testkit;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The test kit as a user's test uses it: the guards, and one 3-rank cluster for the class. */
@ExtendWith(GuardsExtension.class)
class LocalClusterExtensionTest {

    @RegisterExtension
    static final LocalClusterExtension CLUSTER = LocalClusterExtension.ranks(3);

    @Test
    void allReduceSumsOverTheRanks() {
        List<Tensor> out = CLUSTER.run(g -> g.allReduce(Tensor.fromFloats(new float[] {g.rank(), 1}), ReduceOp.SUM));
        try {
            assertEquals(3, out.size());
            for (Tensor t : out) {
                assertArrayEquals(new float[] {0 + 1 + 2, 3}, t.toFloatArray());
            }
        } finally {
            out.forEach(Tensor::release);
        }
    }

    @Test
    void theClusterIsAParameterToo(LocalCluster cluster) {
        assertSame(CLUSTER.cluster(), cluster);
        assertEquals(3, cluster.size());
    }
}
