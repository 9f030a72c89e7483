package io.reactivecollectives.transport;

import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.util.retry.Retry;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Unix socket files and process death, with the processes in separate JVMs: a store server or a
 * rank ended by SIGTERM ({@link Process#destroy()}) removes its socket files on the way out; the
 * file a SIGKILLed server leaves is cleared by the next server on that path, which then serves local
 * clients through it, and the files of SIGKILLed ranks by the next rank that starts on this host; a
 * live server's file is never taken over.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SocketFilesProcessesTest {

    private static final Duration T = Duration.ofSeconds(20);
    private final List<Process> started = new ArrayList<>();

    /** A child's socket files and its output reader. */
    private record Child(Process process, List<String[]> sockets) {
        Path path(int i) {
            return Path.of(sockets.get(i)[2]);
        }

        int port() {
            return Integer.parseInt(sockets.get(0)[1]);
        }
    }

    @AfterEach
    void stop() {
        started.forEach(Process::destroyForcibly);
    }

    private Child child(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), SocketFilesChildMain.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        started.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        List<String[]> sockets = new ArrayList<>();
        StringBuilder seen = new StringBuilder();
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            seen.append(line).append('\n');
            if (line.startsWith("SOCKET ")) {
                sockets.add(line.split(" ", 3));
            } else if (line.equals("READY")) {
                Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "child-output");
                drain.setDaemon(true);
                drain.start();
                return new Child(p, sockets);
            }
        }
        throw new IllegalStateException("the child ended before it was ready:\n" + seen);
    }

    private static boolean exists(Path p) {
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
    }

    @Test
    void aStoreServerEndedBySigtermRemovesItsSocketFile() throws Exception {
        Child c = child("store", "127.0.0.1", "0");
        Path file = c.path(0);
        assertTrue(exists(file), "the server's socket file " + file);
        c.process().destroy();   // SIGTERM
        assertTrue(c.process().waitFor(20, TimeUnit.SECONDS), "the server did not exit on SIGTERM");
        assertFalse(exists(file), "a server ended by SIGTERM left its socket file " + file);
    }

    @Test
    void aRankEndedBySigtermRemovesItsMeshSocketFiles() throws Exception {
        Child c = child("cluster");
        assertEquals(2, c.sockets().size(), "one mesh socket per rank");
        for (int r = 0; r < 2; r++) {
            assertTrue(exists(c.path(r)), "rank " + r + "'s socket file " + c.path(r));
        }
        c.process().destroy();   // SIGTERM
        assertTrue(c.process().waitFor(20, TimeUnit.SECONDS), "the ranks did not exit on SIGTERM");
        for (int r = 0; r < 2; r++) {
            assertFalse(exists(c.path(r)), "rank " + r + " ended by SIGTERM left its socket file " + c.path(r));
        }
    }

    @Test
    void theFilesOfKilledRanksAreClearedByTheNextRankOnThisHost() throws Exception {
        Child dead = child("cluster");
        dead.process().destroyForcibly();   // SIGKILL: no shutdown hook runs
        assertTrue(dead.process().waitFor(20, TimeUnit.SECONDS));
        for (int r = 0; r < 2; r++) {
            assertTrue(exists(dead.path(r)), "a SIGKILLed rank leaves its file behind: " + dead.path(r));
        }
        Child next = child("cluster");   // its first mesh sweeps the files of dead processes
        for (int r = 0; r < 2; r++) {
            assertFalse(exists(dead.path(r)), "the killed rank's stale file is still there: " + dead.path(r));
            assertTrue(exists(next.path(r)), "a live rank's file: " + next.path(r));
        }
        next.process().destroy();
        assertTrue(next.process().waitFor(20, TimeUnit.SECONDS));
    }

    @Test
    void theFileOfAKilledServerIsClearedByTheNextServerOnThatPath() throws Exception {
        Child c = child("store", "127.0.0.1", "0");
        Path file = c.path(0);
        int port = c.port();
        c.process().destroyForcibly();   // SIGKILL: no shutdown hook runs
        assertTrue(c.process().waitFor(20, TimeUnit.SECONDS));
        assertTrue(exists(file), "a SIGKILLed server leaves its file behind: " + file);
        // the port is free again, but an outgoing connection's ephemeral port may hold it a moment
        TcpStoreServer next = TcpStoreServer.builder().port(port).start()
                .retryWhen(Retry.fixedDelay(50, Duration.ofMillis(100))).block(T);
        try {
            assertEquals(file, next.localSocket(), "the next server binds the stale file's path");
            try (TcpStore client = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T)).block(T)) {
                assertTrue(client.isLocalSocket(), client.toString());
                assertEquals(1L, client.add("n", 1).block(T));
            }
        } finally {
            next.close();
            next.onClose().block(T);
        }
        assertFalse(exists(file), "closed normally, the server removed its file");
    }

    @Test
    void aLiveServersFileIsLeftAloneAndTheNewServerUsesTcpOnly() throws Exception {
        // two servers on one port number on two loopback addresses share the file name; the first is alive
        Child c = child("store", "127.0.0.1", "0");
        Path file = c.path(0);
        int port = c.port();
        TcpStoreServer second = TcpStoreServer.builder().host("127.0.0.2").port(port).start().block(T);
        try {
            assertNull(second.localSocket(), "the second server must not take over a live server's file");
            assertTrue(exists(file), "the live server's file is still there");
            try (TcpStore first = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T)).block(T)) {
                assertTrue(first.isLocalSocket(), "the first server still serves on its file: " + first);
                assertEquals(5L, first.add("k", 5).block(T));
            }
        } finally {
            second.close();
            second.onClose().block(T);
        }
        assertTrue(exists(file), "closing the second server left the first one's file alone");
        c.process().destroy();
        assertTrue(c.process().waitFor(20, TimeUnit.SECONDS));
        assertFalse(exists(file));
    }
}
