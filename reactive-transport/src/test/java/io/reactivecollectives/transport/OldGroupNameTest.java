package io.reactivecollectives.transport;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.HashStore;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Code written against the old name {@code TcpProcessGroup} still compiles and runs for one release:
 * a group typed by the old name, and the old {@code connect}, are the {@link MeshProcessGroup}s.
 */
@SuppressWarnings({"deprecation", "removal"})
class OldGroupNameTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theOldNameStillTypesAGroupAndItsConnectStillJoins() {
        HashStore store = new HashStore();
        List<MeshProcessGroup> groups = Flux.range(0, 2)
                .flatMap(rank -> TcpProcessGroup.connect(store, rank, 2,
                        GroupOptions.defaults().withGroupId("old-name").withConnectTimeout(WAIT)), 2)
                .collectSortedList((a, b) -> Integer.compare(a.rank(), b.rank()))
                .block(WAIT);
        try {
            TcpProcessGroup g0 = groups.get(0);
            assertTrue(g0 instanceof MeshProcessGroup);
            assertEquals(2, g0.size());
            assertEquals(0, g0.nextSequence());
            long[] sums = Flux.range(0, 2)
                    .flatMap(r -> groups.get(r).allReduce(Tensor.fromLongs(new long[] {r + 1L}, 1), ReduceOp.SUM)
                            .map(t -> {
                                long v = t.toLongArray()[0];
                                t.release();
                                return v;
                            }), 2)
                    .collectList().block(WAIT).stream().mapToLong(Long::longValue).toArray();
            assertArrayEquals(new long[] {3, 3}, sums);
            assertEquals(1, g0.nextSequence());
        } finally {
            for (TcpProcessGroup g : groups) {
                g.close();
            }
        }
    }
}
