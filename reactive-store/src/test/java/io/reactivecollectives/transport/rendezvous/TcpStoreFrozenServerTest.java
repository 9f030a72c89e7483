package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store server in its own JVM stopped with SIGSTOP (a frozen store host): the client's calls fail
 * within their deadlines naming the server's address, instead of hanging; after SIGCONT the same
 * connection serves again.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TcpStoreFrozenServerTest {

    private static final Duration OP = Duration.ofMillis(1500);
    private static final Duration T = Duration.ofSeconds(30);

    private static void signal(long pid, String sig) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS), "kill -" + sig + " hung");
        assertEquals(0, kill.exitValue(), "kill -" + sig + " " + pid);
    }

    private static void awaitStopped(long pid) throws Exception {
        StoppedProcesses.awaitStopped(pid);
    }

    private static long elapsedMs(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void callsToAStoppedServerFailWithinTheirDeadlineNamingItsAddress() throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                StoreServerMain.class.getName(), "127.0.0.1", "0");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove(StoreAuth.SECRET_ENV);
        Process server = pb.start();
        boolean stopped = false;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("TCP store listening on 127.0.0.1:"), line);
            int port = Integer.parseInt(line.replaceAll(".*127\\.0\\.0\\.1:(\\d+).*", "$1"));
            String address = "127.0.0.1:" + port;
            try (TcpStore store = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T)
                    .withOperationTimeout(OP)).block(T)) {
                assertNotNull(store);
                assertEquals(1L, store.add("n", 1).block(T));

                signal(server.pid(), "STOP");
                stopped = true;
                awaitStopped(server.pid());
                long start = System.nanoTime();
                StoreTimeoutException add = expectTimeout(() -> "add: " + store.add("n", 1).block(T) + " from " + store);
                long addMs = elapsedMs(start);
                assertTrue(add.getMessage().startsWith("store add(\"n\") at " + address + ": no reply within 1500 ms"),
                        add.getMessage());
                assertTrue(addMs >= OP.toMillis() - 50 && addMs < OP.toMillis() + 3000, addMs + " ms");

                start = System.nanoTime();
                StoreTimeoutException get = expectTimeout(() -> "get: " + store.get("never", Duration.ofMillis(500)).block(T));
                long getMs = elapsedMs(start);
                assertTrue(get.getMessage().startsWith("store get(\"never\") at " + address + ": no reply within 2000 ms"),
                        get.getMessage());
                assertTrue(getMs >= 1950 && getMs < 5000, getMs + " ms");

                signal(server.pid(), "CONT");
                stopped = false;
                // the server wakes up, answers the stale requests (dropped by the client) and serves on
                assertEquals(3L, store.add("n", 1).block(T), "the add that timed out was applied after all");
            }
        } finally {
            if (stopped) {
                signal(server.pid(), "CONT");
            }
            server.destroyForcibly();
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server process did not end");
        }
    }

    private static StoreTimeoutException expectTimeout(java.util.function.Supplier<String> call) {
        String answer;
        try {
            answer = call.get();
        } catch (StoreTimeoutException e) {
            return e;
        }
        throw new AssertionError("a stopped server answered: " + answer);
    }
}
