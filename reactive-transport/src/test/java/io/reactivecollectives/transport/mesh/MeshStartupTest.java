package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Start-up mistakes fail fast on every rank they touch, with a message that names them, instead of
 * leaving ranks to wait out the connect timeout (20 s here): a second process started as a rank,
 * and ranks started with different world sizes.
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class MeshStartupTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** When a connect failed (nanoTime) and with what; or a completed group, closed at once. */
    private record Outcome(long atNanos, Throwable error) {
    }

    private static CompletableFuture<Outcome> start(HashStore store, int rank, int world, GroupOptions o) {
        CompletableFuture<Outcome> f = new CompletableFuture<>();
        MeshProcessGroup.connect(store, rank, world, o).subscribe(g -> {
            g.close();
            f.complete(new Outcome(System.nanoTime(), null));
        }, e -> f.complete(new Outcome(System.nanoTime(), e)));
        return f;
    }

    private static GroupOptions options(String group) {
        return GroupOptions.defaults().withGroupId(group).withConnectTimeout(Duration.ofSeconds(20))
                .withTimeout(Duration.ofSeconds(20));
    }

    private static String published(HashStore store, String group, int rank) {
        return new String(store.get(Mesh.addressKey(group, rank), WAIT).block(WAIT), StandardCharsets.UTF_8);
    }

    private static Throwable failedWithin(CompletableFuture<Outcome> f, long sinceNanos, long ms, String who)
            throws Exception {
        Outcome o = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(o.error(), who + " started although the group cannot form");
        long took = (o.atNanos() - sinceNanos) / 1_000_000;
        assertTrue(took < ms, who + " failed " + took + " ms after the mistake appeared, not within " + ms + " ms: "
                + o.error());
        return o.error();
    }

    /** One group formed and closed first, so that class loading does not count against the 1 s. */
    @BeforeAll
    static void warmUp() {
        HashStore store = new HashStore(Duration.ofSeconds(20));
        try {
            GroupOptions o = options("warm-up");
            Mono.zip(MeshProcessGroup.connect(store, 0, 2, o), MeshProcessGroup.connect(store, 1, 2, o))
                    .doOnNext(t -> {
                        t.getT1().close();
                        t.getT2().close();
                    }).block(WAIT);
        } finally {
            store.close();
        }
    }

    @Test
    void twoProcessesStartedAsRankZeroBothFailWithinASecondNamingBothAddresses() throws Exception {
        HashStore store = new HashStore(Duration.ofSeconds(20));
        try {
            GroupOptions o = options("twice");
            CompletableFuture<Outcome> first = start(store, 0, 2, o);
            String firstAddress = published(store, "twice", 0);
            long since = System.nanoTime();
            CompletableFuture<Outcome> second = start(store, 0, 2, o);
            Throwable a = failedWithin(first, since, 1000, "the first rank 0");
            Throwable b = failedWithin(second, since, 1000, "the second rank 0");
            for (Throwable e : new Throwable[] {a, b}) {
                assertTrue(e instanceof MeshStartException, e.toString());
                assertTrue(e.getMessage().contains("rank 0 joined twice: ") && e.getMessage().contains("(addresses "
                        + firstAddress + " and "), e.getMessage());
            }
            assertEquals(a.getMessage().substring(a.getMessage().indexOf("rank 0 joined twice")),
                    b.getMessage().substring(b.getMessage().indexOf("rank 0 joined twice")), "one story on both");
            // the real rank 1, arriving now, learns of it at once instead of dialling a dead address
            long late = System.nanoTime();
            Throwable c = failedWithin(start(store, 1, 2, o), late, 1000, "rank 1");
            assertTrue(c.getMessage().contains("rank 0 cannot be reached: rank 0 joined twice"), c.getMessage());
        } finally {
            store.close();
        }
    }

    @Test
    void aDuplicateOfARankOfARunningGroupFailsAndTheGroupCarriesOn() throws Exception {
        HashStore store = new HashStore(Duration.ofSeconds(20));
        try {
            GroupOptions o = options("late-twin");
            MeshProcessGroup[] g = Mono.zip(MeshProcessGroup.connect(store, 0, 2, o), MeshProcessGroup.connect(store, 1, 2, o))
                    .map(t -> new MeshProcessGroup[] {t.getT1(), t.getT2()}).block(WAIT);
            try {
                long since = System.nanoTime();
                Throwable e = failedWithin(start(store, 1, 2, o), since, 1000, "the second rank 1");
                assertTrue(e.getMessage().contains("rank 1 joined twice: "), e.getMessage());
                Mono.when(g[0].barrier(), g[1].barrier()).block(WAIT);
            } finally {
                g[0].close();
                g[1].close();
            }
        } finally {
            store.close();
        }
    }

    @Test
    void aRankOfAnEarlierGroupThatIsGoneIsTakenOver() throws Exception {
        HashStore store = new HashStore(Duration.ofSeconds(20));
        try {
            GroupOptions o = options("again");
            MeshProcessGroup[] g = Mono.zip(MeshProcessGroup.connect(store, 0, 2, o), MeshProcessGroup.connect(store, 1, 2, o))
                    .map(t -> new MeshProcessGroup[] {t.getT1(), t.getT2()}).block(WAIT);
            g[0].close();
            g[1].close();
            // a restart with the same store: the keys of the closed ranks are stale and taken over
            Mono.zip(MeshProcessGroup.connect(store, 1, 2, o), MeshProcessGroup.connect(store, 0, 2, o))
                    .doOnNext(t -> {
                        t.getT1().close();
                        t.getT2().close();
                    }).block(WAIT);
        } finally {
            store.close();
        }
    }

    @Test
    void ranksWithDifferentWorldSizesBothFailWithinASecondNamingBothSizes() throws Exception {
        for (int[] sizes : new int[][] {{2, 3}, {3, 2}}) {
            HashStore store = new HashStore(Duration.ofSeconds(20));
            try {
                GroupOptions o = options("sizes-" + sizes[0] + "-" + sizes[1]);
                CompletableFuture<Outcome> zero = start(store, 0, sizes[0], o);
                published(store, o.groupId(), 0);
                CompletableFuture<Outcome> one = start(store, 1, sizes[1], o);
                published(store, o.groupId(), 1);
                long since = System.nanoTime();  // rank 1 appeared (the failures may come before this)
                String want = "world size mismatch: rank 0 has world size " + sizes[0] + ", rank 1 has world size "
                        + sizes[1];
                for (Throwable e : new Throwable[] {failedWithin(zero, since, 1000, "rank 0"),
                        failedWithin(one, since, 1000, "rank 1")}) {
                    assertTrue(e instanceof MeshStartException, e.toString());
                    assertTrue(e.getMessage().contains(want), e.getMessage());
                }
            } finally {
                store.close();
            }
        }
    }

    /**
     * The audit: rank 0 embeds the store and exits at start-up (here: the store server closes);
     * rank 1, connected to rank 0 and waiting for rank 2 to connect to it, asks the store nothing
     * then and waited out the connect timeout. It fails at once, naming the store and the rank.
     */
    @Test
    void aRankWaitingAtTheRendezvousFailsAtOnceWhenTheStoreConnectionCloses() throws Exception {
        // the server's own event loops: shutting them down closes its connections, as the exit of its process does
        reactor.netty.resources.LoopResources loops = reactor.netty.resources.LoopResources.create("gone-store", 1, true);
        io.reactivecollectives.transport.rendezvous.TcpStoreServer server =
                io.reactivecollectives.transport.rendezvous.TcpStoreServer.builder().host("127.0.0.1").port(0)
                        .unixSocket(false).loops(loops).start().block(WAIT);
        assertNotNull(server);
        io.reactivecollectives.transport.rendezvous.TcpStoreOptions so =
                io.reactivecollectives.transport.rendezvous.TcpStoreOptions.of("127.0.0.1", server.port());
        io.reactivecollectives.transport.rendezvous.TcpStore s0 =
                io.reactivecollectives.transport.rendezvous.TcpStore.connect(so).block(WAIT);
        io.reactivecollectives.transport.rendezvous.TcpStore s1 =
                io.reactivecollectives.transport.rendezvous.TcpStore.connect(so).block(WAIT);
        assertNotNull(s0);
        assertNotNull(s1);
        try {
            GroupOptions o = options("store-gone");
            CompletableFuture<Outcome> zero = new CompletableFuture<>();
            MeshProcessGroup.connect(s0, 0, 3, o).subscribe(g -> g.close(),
                    e -> zero.complete(new Outcome(System.nanoTime(), e)));
            CompletableFuture<Outcome> one = new CompletableFuture<>();
            MeshProcessGroup.connect(s1, 1, 3, o).subscribe(g -> g.close(),
                    e -> one.complete(new Outcome(System.nanoTime(), e)));
            s1.get(Mesh.addressKey(o.groupId(), 1), WAIT).block(WAIT);
            Thread.sleep(1000);   // rank 1 connects to rank 0, then only waits for rank 2 to connect to it
            long since = System.nanoTime();
            server.close();
            loops.dispose();
            Throwable e = failedWithin(one, since, 3000, "rank 1");
            assertTrue(e instanceof MeshStartException, e.toString());
            assertTrue(e.getMessage().startsWith("group 'store-gone' rank 1: rendezvous: the connection to store " + s1
                    + " closed while waiting for rank 2 to join or connect"), e.getMessage());
            assertNotNull(zero.get(WAIT.toSeconds(), TimeUnit.SECONDS).error());
        } finally {
            s0.close();
            s1.close();
            server.close();
            loops.dispose();
        }
    }

    /**
     * A peer that published a loopback address from another host (the 127.0.1.1 host-name case,
     * or a rank left on the loopback default) is named at once, with what to set, instead of
     * being retried until the connect timeout.
     */
    @Test
    void aLoopbackAddressFromAnotherHostIsNamedAtOnce() throws Exception {
        HashStore store = new HashStore();
        String group = "loopback-elsewhere";
        store.set(Mesh.addressKey(group, 0), "127.0.1.1:45999;node=another-host/0000".getBytes(StandardCharsets.UTF_8))
                .block(WAIT);
        long t0 = System.nanoTime();
        Throwable e = failedWithin(start(store, 1, 2, options(group)), t0, 1000, "rank 1");
        assertTrue(e.getMessage().contains("rank 0 published the loopback address 127.0.1.1:45999 from another host")
                && e.getMessage().contains("RC_HOST"), e.getMessage());
    }

    /** A peer whose address refuses connections is named, with the error, when start-up gives up. */
    @Test
    void anUnreachablePeerIsNamedWithItsAddress() throws Exception {
        HashStore store = new HashStore();
        String group = "unreachable-peer";
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();   // closed again: nothing listens there
        }
        store.set(Mesh.addressKey(group, 0), ("127.0.0.1:" + port).getBytes(StandardCharsets.UTF_8)).block(WAIT);
        GroupOptions o = options(group).withConnectTimeout(Duration.ofSeconds(1));
        Throwable e = failedWithin(start(store, 1, 2, o), System.nanoTime(), 5000, "rank 1");
        assertTrue(e.getMessage().contains("ranks [0] never appeared")
                && e.getMessage().contains("rank 0 unreachable") && e.getMessage().contains(":" + port), e.getMessage());
    }
}
