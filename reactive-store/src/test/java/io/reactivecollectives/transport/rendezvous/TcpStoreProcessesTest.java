package io.reactivecollectives.transport.rendezvous;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** TCP store clients in separate JVM processes: exact counters, and a client killed mid-wait. */
class TcpStoreProcessesTest {

    private static final Duration T = Duration.ofSeconds(30);
    private TcpStoreServer server;
    private TcpStore store;
    private final List<Process> started = new ArrayList<>();

    @BeforeEach
    void start() {
        server = TcpStoreServer.builder().start().block(T);
        store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(T)).block(T);
    }

    @AfterEach
    void stop() {
        started.forEach(Process::destroyForcibly);
        store.close();
        server.close();
    }

    private Process child(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", System.getProperty("java.class.path"), StoreChildMain.class.getName()));
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile("rc-store-child", ".log");
        log.toFile().deleteOnExit();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        started.add(p);
        childLogs.put(p, log);
        return p;
    }

    private final java.util.Map<Process, Path> childLogs = new java.util.HashMap<>();

    private String output(Process p) throws IOException {
        return Files.readString(childLogs.get(p), StandardCharsets.UTF_8);
    }

    @Test
    void eightProcessesTimesAThousandAddsIsExactlyEightThousand() throws Exception {
        String port = Integer.toString(server.port());
        List<Process> ps = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ps.add(child("add", "127.0.0.1", port, "counter", "1000"));
        }
        for (Process p : ps) {
            assertTrue(p.waitFor(80, TimeUnit.SECONDS), "child hung");
            assertEquals(0, p.exitValue(), output(p));
            assertTrue(output(p).contains("DONE"), output(p));
        }
        assertEquals("8000", new String(store.get("counter").block(T), StandardCharsets.UTF_8));
        assertEquals(8001L, store.add("counter", 1).block(T));
    }

    @Test
    void clientKilledMidGetDisturbsNobodyAndLeavesNoWaiter() throws Exception {
        String port = Integer.toString(server.port());
        Process victim = child("get", "127.0.0.1", port, "never-set");
        Process survivor = child("get", "127.0.0.1", port, "later");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.pendingWaits() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(2, server.pendingWaits(), "both children should be waiting");
        assertEquals(3, server.connections());
        Process adder = child("add", "127.0.0.1", port, "ctr", "500");
        victim.destroyForcibly();
        assertTrue(victim.waitFor(20, TimeUnit.SECONDS));
        while (server.pendingWaits() != 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(1, server.pendingWaits(), "the killed client's waiter must be gone, the survivor's kept");
        store.set("later", "hello".getBytes(StandardCharsets.UTF_8)).block(T);
        assertTrue(survivor.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, survivor.exitValue(), output(survivor));
        assertTrue(output(survivor).contains("hello"), output(survivor));
        assertTrue(adder.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, adder.exitValue(), output(adder));
        assertEquals("500", new String(store.get("ctr").block(T), StandardCharsets.UTF_8));
        assertEquals(0, server.pendingWaits());
    }
}
