package io.reactivecollectives.store.raft;

import io.reactivecollectives.core.testing.FreePorts;
import io.reactivecollectives.core.testing.StandardErrorCapture;
import io.reactivecollectives.transport.rendezvous.StoreReplicationProvider;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica that cannot start fails its start, and never ends the process that holds it: Ratis's own
 * answer to a gRPC port that cannot be bound is {@code System.exit(1)} (it ended CI's test JVM when
 * another socket took a replica's port), and its exit hook, once used, ends the process on any
 * thread's uncaught exception.
 */
class ReplicaStartTest {

    @Test
    void aTakenPortFailsTheStartEveryTimeAndTheProcessLivesOn() throws Exception {
        StoreReplicationProvider provider = StoreReplicationProvider.find().orElseThrow();
        Thread.UncaughtExceptionHandler handler = Thread.getDefaultUncaughtExceptionHandler();
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            List<InetSocketAddress> peers = List.of(new InetSocketAddress("127.0.0.1", port),
                    new InetSocketAddress("127.0.0.1", FreePorts.one()),
                    new InetSocketAddress("127.0.0.1", FreePorts.one()));
            // twice: Ratis throws only the first exit it is asked for, and returns from later ones
            for (int i = 0; i < 2; i++) {
                Path dir = Files.createTempDirectory("rc-replica-start");
                Exception e = assertThrows(Exception.class, () -> TcpStoreServer.builder().unixSocket(false)
                        .replicated(provider, new StoreReplicationProvider.Replicas(peers, 0, "start-test", dir))
                        .start().block(Duration.ofSeconds(30)));
                String m = String.valueOf(e.getMessage());
                assertTrue(m.contains("store replica 0") && m.contains(":" + port) && m.contains("in use"), m);
            }
        }
        // the process's uncaught-exception handler is the one it had, not Ratis's, which ends the process
        assertSame(handler, Thread.getDefaultUncaughtExceptionHandler());
    }

    @Test
    void aReplicaWhoseOthersNeverStartSaysSoEveryIntervalUntilClosed() throws Exception {
        StoreReplicationProvider provider = StoreReplicationProvider.find().orElseThrow();
        List<InetSocketAddress> peers = List.of(new InetSocketAddress("127.0.0.1", FreePorts.one()),
                new InetSocketAddress("127.0.0.1", FreePorts.one()), new InetSocketAddress("127.0.0.1", FreePorts.one()));
        String saved = System.getProperty("rc.wait-reports.interval");
        System.setProperty("rc.wait-reports.interval", "1s");
        String text;
        String after;
        try (StandardErrorCapture err = new StandardErrorCapture()) {
            TcpStoreServer server = TcpStoreServer.builder().unixSocket(false).port(0)
                    .replicated(provider, new StoreReplicationProvider.Replicas(peers, 0, "alone-test",
                            Files.createTempDirectory("rc-replica-alone")))
                    .start().block(Duration.ofSeconds(30));
            try {
                Thread.sleep(3_500);   // replicas 1 and 2 never start
                text = err.text();
            } finally {
                server.close();
            }
            Thread.sleep(1_500);
            after = err.text().substring(text.length());
        } finally {
            if (saved == null) {
                System.clearProperty("rc.wait-reports.interval");
            } else {
                System.setProperty("rc.wait-reports.interval", saved);
            }
        }
        String line = "store replica 0 of 3: no leader yet: waiting for 2 of the store's replicas (";
        assertTrue(text.lines().filter(l -> l.contains(line)).count() >= 2, "said every second that it waits:\n" + text);
        assertTrue(text.contains(":" + peers.get(1).getPort()) && text.contains("is collectives-run running on every node"), text);
        assertTrue(after.lines().noneMatch(l -> l.contains(line)), "silent once closed:\n" + after);
    }
}
