package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.mesh.Mesh;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A group on an IPv6 address: bound and published as {@code [::1]:port}, and it works. */
class Ipv6GroupTest {

    @Test
    void aGroupOnIpv6LoopbackPublishesBracketsAndAllReduces() {
        ClusterTesting.withCluster(2, GroupOptions.defaults().withGroupId("ipv6").withHost("::1"), cluster -> {
            String published = new String(cluster.store().get(Mesh.addressKey("ipv6", 1), ClusterTesting.TIMEOUT)
                    .block(ClusterTesting.TIMEOUT), StandardCharsets.UTF_8);
            assertTrue(published.startsWith("[::1]:"), published);
            List<Tensor> out = cluster.run(g -> g.allReduce(ClusterTesting.filled(DType.FLOAT32, 1000, g.rank() + 1),
                    ReduceOp.SUM)).block(ClusterTesting.TIMEOUT);
            for (Tensor t : out) {
                assertEquals(3.0, t.getDouble(999));
                t.release();
            }
            return null;
        });
    }
}
