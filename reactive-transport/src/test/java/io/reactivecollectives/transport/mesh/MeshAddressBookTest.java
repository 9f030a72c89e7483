package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The address book rank 0 gathers ({@link MeshAddressBook}): a rank absent when it was written
 * still joins later, and a rank that never comes is the only one the others' start-up timeouts name.
 */
class MeshAddressBookTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    private static GroupOptions options(String group, Duration connect) {
        GroupOptions o = GroupOptions.defaults().withGroupId(group).withConnectTimeout(connect).withTimeout(WAIT);
        return o.withDiagnostics(o.diagnostics().withWaitReportInterval(Duration.ZERO));
    }

    private static CompletableFuture<MeshProcessGroup> start(HashStore store, int rank, int world, GroupOptions o) {
        return MeshProcessGroup.connect(store, rank, world, o).toFuture();
    }

    @Test
    void aBookRoundTripsAddressesAndEmptyLinesOfAbsentRanks() {
        byte[] book = MeshAddressBook.encode("h0:1;node=n", List.of("h1:2".getBytes(StandardCharsets.UTF_8), new byte[0],
                "refused=a\nb".getBytes(StandardCharsets.UTF_8)));
        assertArrayEquals(new String[] {"h0:1;node=n", "h1:2", "", "refused=a b"}, MeshAddressBook.decode(book));
        assertTrue(!MeshAddressBook.key("g", "h0:1").equals(MeshAddressBook.key("g", "h0:2")),
                "the book of another process of rank 0 has another key");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aRankAbsentFromTheBookJoinsLaterAndTheGroupForms() throws Exception {
        HashStore store = new HashStore(WAIT);
        Duration connect = Duration.ofSeconds(4);
        GroupOptions o = options("straggler", connect);
        try {
            CompletableFuture<MeshProcessGroup> zero = start(store, 0, 4, o);
            CompletableFuture<MeshProcessGroup> one = start(store, 1, 4, o);
            CompletableFuture<MeshProcessGroup> three = start(store, 3, 4, o);
            // rank 0 writes the book without rank 2 after half the connect timeout (2 s)
            store.get(Mesh.addressKey("straggler", 0), WAIT).block(WAIT);
            Thread.sleep(connect.dividedBy(2).plusMillis(300).toMillis());
            CompletableFuture<MeshProcessGroup> two = start(store, 2, 4, o);
            List<MeshProcessGroup> all = List.of(zero.get(10, TimeUnit.SECONDS), one.get(10, TimeUnit.SECONDS),
                    two.get(10, TimeUnit.SECONDS), three.get(10, TimeUnit.SECONDS));
            try {
                Mono.when(all.stream().map(MeshProcessGroup::barrier).toList()).block(WAIT);
                assertEquals(4, all.get(3).size());
            } finally {
                all.forEach(MeshProcessGroup::close);
            }
        } finally {
            store.close();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aRankThatNeverComesIsTheOnlyOneTheOthersName() {
        HashStore store = new HashStore(WAIT);
        GroupOptions o = options("never", Duration.ofSeconds(2));
        try {
            List<CompletableFuture<MeshProcessGroup>> ranks = List.of(start(store, 0, 4, o), start(store, 1, 4, o),
                    start(store, 3, 4, o));
            for (CompletableFuture<MeshProcessGroup> f : ranks) {
                Throwable e = null;
                try {
                    f.get(10, TimeUnit.SECONDS).close();
                } catch (Exception x) {
                    e = x.getCause();
                }
                assertNotNull(e, "a rank started although rank 2 never came");
                assertTrue(e instanceof MeshStartException && e.getMessage().contains("ranks [2] never appeared"),
                        String.valueOf(e));
            }
        } finally {
            store.close();
        }
    }
}
