package io.reactivecollectives.transport.rendezvous;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store that cannot be reached is not silent: while the client retries it logs the address, the
 * attempt and the last error (at most every few seconds), and the final error says the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpStoreUnreachableTest {

    @Test
    void retriesAreLoggedWithAddressAttemptAndLastErrorAndTheFinalErrorIsPrecise() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // free again once closed: nobody listens there
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        RuntimeException e;
        try {
            e = assertThrows(RuntimeException.class, () -> TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port)
                    .withTimeout(Duration.ofMillis(7000))).block(Duration.ofSeconds(30)));
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        String address = "127.0.0.1:" + port;
        long retryLines = log.lines().filter(l -> l.contains("TCP store at " + address + " not reachable yet")).count();
        assertTrue(retryLines >= 1 && retryLines <= 3, "one line per " + io.reactivecollectives.core.observe.WaitReports.defaultInterval()
                + " at most, saw " + retryLines + ":\n" + log);
        assertTrue(log.contains("attempt ") && log.contains("Connection refused"), log);
        String m = e.getMessage();
        assertTrue(m.contains("no TCP store at " + address + " after 7000 ms") && m.contains("failed attempts")
                && m.contains("last error") && m.contains("Connection refused"), m);
    }
}
