package io.reactivecollectives.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.transport.rendezvous.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.KeyManagerFactory;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mesh's sockets are native epoll ones on Linux x86-64 (the test JVMs set no
 * {@code rc.transport.native}), NIO ones elsewhere; the group says which, and an all-reduce is right
 * over them, through the Unix socket of ranks on one host and over TCP (which TLS forces). NIO
 * under {@code rc.transport.native=nio}, a setting read once per JVM, is {@link ProcessesTest}'s.
 */
class SocketTransportTest {

    @TempDir
    static Path dir;
    static TlsOptions tls;

    @BeforeAll
    static void certificate() throws Exception {
        TestCertificates.SelfSigned self = TestCertificates.create(dir, "rank");
        KeyManagerFactory kmf = self.keys();
        File cert = self.certificate();
        tls = new TlsOptions(SslContextBuilder.forServer(kmf).trustManager(cert).clientAuth(ClientAuth.REQUIRE).build(),
                SslContextBuilder.forClient().keyManager(kmf).trustManager(cert).build());
    }

    /** {@code "epoll"} where the build's native epoll jar loads (Linux x86-64), else {@code "nio"}. */
    static String expectedSockets() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                && (arch.equals("amd64") || arch.equals("x86_64")) ? "epoll" : "nio";
    }

    @Test
    void theMeshIsOnEpollOnLinuxByDefault() {
        assertEquals(expectedSockets(), MeshProcessGroup.socketTransport());
    }

    @ParameterizedTest(name = "overTcp={0}")
    @ValueSource(booleans = {false, true})
    void theGroupSaysWhichSocketsCarryItAndAnAllReduceIsRightOverThem(boolean overTcp) {
        String sockets = expectedSockets();
        boolean epoll = sockets.equals("epoll");
        GroupOptions options = GroupOptions.defaults().withGroupId("socket-transport-" + overTcp)
                .withTimeout(Duration.ofSeconds(20));
        ClusterTesting.withCluster(2, overTcp ? options.withTls(tls) : options, cluster -> {
            for (int r = 0; r < 2; r++) {
                MeshProcessGroup g = cluster.group(r);
                int peer = 1 - r;
                String described = g.describeTransportTo(peer);
                Channel ch = StripedConnectionsTest.link(g, peer).channel();
                if (overTcp) {
                    assertEquals("tcp/" + sockets, described, "rank " + r + " to " + peer);
                    Class<?> want = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
                    assertEquals(want, ch.getClass(), "rank " + r + " to " + peer);
                } else {
                    // shared memory keeps the Unix socket open under it
                    assertTrue(described.equals("shm") || described.equals("unix/" + sockets), described);
                    Class<?> want = epoll ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class;
                    assertEquals(want, ch.getClass(), "rank " + r + " to " + peer);
                }
                assertTrue(g.toString().endsWith(", " + sockets + "]"), g.toString());
            }
            for (long n : new long[] {7, 300_000}) {
                AllReduceTest.check(cluster, DType.FLOAT32, ReduceOp.SUM, n, Algorithm.AUTO, n);
                AllReduceTest.check(cluster, DType.INT64, ReduceOp.MAX, n, Algorithm.RING, n + 1);
            }
            return null;
        });
    }

    /**
     * With one connection per peer, all of a rank's connections run on one event loop, its home loop
     * ({@code rc.transport.homeLoop}, on by default): a ring's step goes from the receive to the next
     * send on one thread. Ranks take the loops in turn, so three ranks in one JVM do not all share one.
     */
    @Test
    void aRanksConnectionsRunOnItsHomeLoop() {
        GroupOptions options = GroupOptions.defaults().withGroupId("home-loop").withTls(tls)
                .withTimeout(Duration.ofSeconds(20));
        ClusterTesting.withCluster(3, options, cluster -> {
            Set<EventLoop> homes = new HashSet<>();
            for (int r = 0; r < 3; r++) {
                MeshProcessGroup g = cluster.group(r);
                EventLoop home = null;
                for (int peer = 0; peer < 3; peer++) {
                    if (peer == r) {
                        continue;
                    }
                    EventLoop loop = StripedConnectionsTest.link(g, peer).channel().eventLoop();
                    if (home == null) {
                        home = loop;
                    }
                    assertEquals(home, loop, "rank " + r + "'s connection to rank " + peer + " is off its home loop");
                }
                homes.add(home);
            }
            assertTrue(homes.size() > 1, "all three ranks on one loop: " + homes);
            AllReduceTest.check(cluster, DType.FLOAT32, ReduceOp.SUM, 300_000, Algorithm.RING, 300_000);
            return null;
        });
    }
}
