package io.reactivecollectives.transport;

import io.reactivecollectives.transport.algorithms.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link MeshProcessGroup#topology()}'s value: the transport's topology, as a public record. */
class HostLayoutTest {

    @Test
    void copiesTheTopology() {
        Topology t = Topology.of(new String[] {"host-a", "host-b", "host-a", "host-b", null});
        HostLayout layout = HostLayout.of(t);
        assertEquals(List.of(List.of(0, 2), List.of(1, 3), List.of(4)), layout.hosts());
        assertEquals(5, layout.size());
        assertEquals(1, layout.hostOf(3));
        assertEquals(2, layout.hostOf(4));
        assertEquals(t.toString(), layout.toString());
        assertEquals("3 host(s): [[0, 2], [1, 3], [4]]", layout.toString());
        assertThrows(IllegalArgumentException.class, () -> layout.hostOf(5));
    }

    @Test
    void aLocalClusterRunsOnOneHost() {
        try (LocalCluster cluster = LocalCluster.start(2).block()) {
            List<String> layouts = cluster.run(g -> reactor.core.publisher.Mono.just(((MeshProcessGroup) g).topology().toString()))
                    .block();
            assertEquals(List.of("1 host(s): [[0, 1]]", "1 host(s): [[0, 1]]"), layouts);
        }
    }
}
