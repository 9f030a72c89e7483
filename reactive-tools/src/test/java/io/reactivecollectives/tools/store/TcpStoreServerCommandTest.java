package io.reactivecollectives.tools.store;

import io.reactivecollectives.transport.rendezvous.StoreAuth;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stand-alone store server command in its own JVM, with authentication from the environment. */
class TcpStoreServerCommandTest {

    private static final Duration T = Duration.ofSeconds(30);

    @Test
    void standAloneServerCommandServesClients() throws Exception {
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                TcpStoreServerCommand.class.getName(), "--host", "127.0.0.1", "--port", "0");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put(StoreAuth.SECRET_ENV, "cmd-secret");
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("TCP store listening on 127.0.0.1:") && line.contains("(HMAC)"), line);
            int port = Integer.parseInt(line.replaceAll(".*127\\.0\\.0\\.1:(\\d+).*", "$1"));
            try (TcpStore client = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(T)
                    .withSecret("cmd-secret".getBytes(StandardCharsets.UTF_8))).block(T)) {
                assertEquals(7L, client.add("c", 7).block(T));
                assertEquals("7", new String(client.get("c").block(T), StandardCharsets.UTF_8));
            }
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        } finally {
            p.destroyForcibly();
        }
    }

    private static String[] run(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int code = io.reactivecollectives.tools.cli.Cli.commandLine(new TcpStoreServerCommand(),
                new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)).execute(args);
        return new String[] {String.valueOf(code), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void badOptionsAreOneLineWithExitCode2AndABusyPortOneLineWithExitCode1() throws Exception {
        String[][] cases = {
            {"--port", "abc"}, {"--bogus"}, {"--port", "-1"}, {"--port", "70000"}, {"--max-connections", "0"},
            {"--frame-memory", "1"}, {"--max-frame-size", "10"}, {"--handshake-timeout-ms", "0"},
            {"--tls-cert", "/nonexistent.pem"}, {"--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key"},
        };
        for (String[] args : cases) {
            String[] r = run(args);
            assertEquals("2", r[0], String.join(" ", args) + ": " + r[2]);
            List<String> lines = r[2].lines().toList();
            assertEquals(1, lines.size(), String.join(" ", args) + ": " + r[2]);
            assertTrue(lines.get(0).startsWith("tcp-store-server: ") && lines.get(0).endsWith("(see --help)"), lines.get(0));
        }
        assertTrue(run("--port", "-1")[2].contains("--port must be 0..65535, was -1"), run("--port", "-1")[2]);
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            String[] busy = run("--host", "127.0.0.1", "--port", String.valueOf(taken.getLocalPort()), "--no-unix-socket");
            assertEquals("1", busy[0], busy[2]);
            assertEquals(1, busy[2].lines().count(), busy[2]);
            assertTrue(busy[2].startsWith("tcp-store-server: cannot serve on 127.0.0.1:" + taken.getLocalPort() + ": "), busy[2]);
            // before: "Failed to bind on [127.0.0.1:port]" alone, without why
            assertTrue(busy[2].contains("Address already in use"), busy[2]);
        }
    }

    /**
     * The line names the address as clients dial it: before, the default --host 0.0.0.0 printed
     * "TCP store listening on 0:0:0:0:0:0:0:0:29500" (Netty's IPv6 wildcard, unbracketed).
     */
    @Test
    void theListeningLineNamesTheAddressAsClientsWriteIt() throws Exception {
        assertEquals("0.0.0.0:29500", TcpStoreServerCommand.listening(
                new java.net.InetSocketAddress(java.net.InetAddress.getByName("::"), 29500), "0.0.0.0", 29500));
        assertEquals("[0:0:0:0:0:0:0:1]:7", TcpStoreServerCommand.listening(
                new java.net.InetSocketAddress(java.net.InetAddress.getByName("::1"), 7), "::1", 7));
        assertEquals("127.0.0.1:7", TcpStoreServerCommand.listening(
                new java.net.InetSocketAddress(java.net.InetAddress.getByName("127.0.0.1"), 7), "localhost", 7));
    }

    /** --help says what turns authentication on (before, RC_STORE_SECRET was only in operations.md). */
    @Test
    void helpNamesTheSecretVariable() {
        String[] r = run("--help");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("RC_STORE_SECRET"), r[1]);
    }
}
