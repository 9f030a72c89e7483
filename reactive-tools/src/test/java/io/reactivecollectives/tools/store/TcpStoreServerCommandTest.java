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
}
