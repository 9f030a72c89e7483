package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.mesh.Mesh;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Idle and slowloris connections to a rank's transport port are closed once the bounded handshake
 * time has passed (the connect timeout, at most {@link Mesh#MAX_HANDSHAKE_TIME}), while the group's
 * collectives carry on; the 40 rejections take two log lines (the first, then a summary).
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransportPortIdleClientsTest {

    @Test
    void idleAndSlowConnectionsAreClosedAfterTheHandshakeTime() throws Exception {
        Duration handshake = Duration.ofMillis(1500);
        GroupOptions opts = GroupOptions.defaults().withGroupId("idle-clients").withConnectTimeout(handshake)
                .withTimeout(Duration.ofSeconds(20));
        LocalCluster cluster = LocalCluster.start(2, opts).block(ClusterTesting.TIMEOUT);
        List<Socket> sockets = new ArrayList<>();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        Tensor a = Tensor.empty(DType.FLOAT32, 1024);
        Tensor b = Tensor.empty(DType.FLOAT32, 1024);
        try {
            long start = System.nanoTime();
            for (int i = 0; i < 40; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), cluster.group(0).port());
                s.setSoTimeout(200);
                sockets.add(s);
            }
            // the odd ones are slowloris: a byte of a frame header every 200 ms
            long[] closedAfter = new long[sockets.size()];
            int open = sockets.size();
            while (open > 0 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20)) {
                for (int i = 0; i < sockets.size(); i++) {
                    if (closedAfter[i] != 0) {
                        continue;
                    }
                    Socket s = sockets.get(i);
                    try {
                        if (i % 2 == 1) {
                            s.getOutputStream().write(0);
                        }
                        if (read(s.getInputStream()) < 0) {
                            closedAfter[i] = System.nanoTime() - start;
                            open--;
                        }
                    } catch (IOException e) { // reset by the rank: closed
                        closedAfter[i] = System.nanoTime() - start;
                        open--;
                    }
                }
                Mono.when(cluster.group(0).allReduce(a, ReduceOp.SUM), cluster.group(1).allReduce(b, ReduceOp.SUM))
                        .block(Duration.ofSeconds(20)); // collectives carry on meanwhile
            }
            assertEquals(0, open, "every idle or slow connection was closed");
            for (long ns : closedAfter) {
                long ms = TimeUnit.NANOSECONDS.toMillis(ns);
                assertTrue(ms >= handshake.toMillis() - 100 && ms < handshake.toMillis() + 5000, "closed after " + ms + " ms");
            }
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            a.release();
            b.release();
            cluster.close();
            System.setErr(err);
        }
        assertEquals(Duration.ofSeconds(10), Mesh.MAX_HANDSHAKE_TIME);
        // 40 rejections, logged rate-limited: the first in full, the rest summed up (here when the rank closed)
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("group 'idle-clients' rank 0")).toList();
        assertEquals(1, lines.stream().filter(l -> l.contains("closing connection from")).count(), String.join("\n", lines));
        assertEquals(1, lines.stream().filter(l -> l.contains("rejected 40 connections in the last 10 s: no handshake"))
                .count(), String.join("\n", lines));
    }

    @Test
    void connectionsBeyondTheHandshakeLimitAreClosedAtOnce() throws Exception {
        GroupOptions opts = GroupOptions.defaults().withGroupId("handshake-limit")
                .withConnectTimeout(Duration.ofSeconds(10)).withTimeout(Duration.ofSeconds(20));
        LocalCluster cluster = LocalCluster.start(2, opts).block(ClusterTesting.TIMEOUT);
        List<Socket> sockets = new ArrayList<>();
        Tensor a = Tensor.empty(DType.FLOAT32, 16);
        Tensor b = Tensor.empty(DType.FLOAT32, 16);
        try {
            int limit = 1024; // MeshAdmission.maxHandshaking() of a 2-rank group
            for (int i = 0; i < limit + 100; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), cluster.group(0).port());
                s.setSoTimeout(50);
                sockets.add(s);
            }
            // within 8 s, well before the 10 s handshake time, exactly the 100 over the limit are closed (which
            // ones depends on the order the event loops registered them) and the other 1,024 are open
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            java.util.Set<Integer> closed = new java.util.HashSet<>();
            while (closed.size() < 100 && System.nanoTime() < deadline) {
                for (int i = 0; i < sockets.size(); i++) {
                    if (closed.contains(i)) {
                        continue;
                    }
                    Socket s = sockets.get(i);
                    s.setSoTimeout(1);
                    try {
                        if (s.getInputStream().read() < 0) {
                            closed.add(i);
                        }
                    } catch (SocketTimeoutException e) {
                        // open
                    } catch (IOException e) { // reset: closed
                        closed.add(i);
                    }
                }
            }
            assertEquals(100, closed.size(), "connections closed within 8 s");
            Mono.when(cluster.group(0).allReduce(a, ReduceOp.SUM), cluster.group(1).allReduce(b, ReduceOp.SUM))
                    .block(Duration.ofSeconds(20)); // the group's own connections were made before
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            a.release();
            b.release();
            cluster.close();
        }
    }

    private static int read(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (SocketTimeoutException e) {
            return 0; // still open
        }
    }
}
