package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.core.observe.WaitReports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store that cannot be reached is not silent: while the client retries it says so every
 * {@link WaitReports#defaultInterval()} (5 s) with the address, the attempt and the last error, and
 * the final error says the same; for our {@link TcpStore} and for the client of torch's store,
 * {@link TorchTcpStore}, in the same words.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpStoreUnreachableTest {

    private static final Duration TIMEOUT = Duration.ofMillis(7000);

    private record Attempt(String log, String address, RuntimeException error) {
    }

    /** Connects to a port nobody listens on, for {@link #TIMEOUT}; what was printed and the error. */
    private static Attempt connectToNobody(IntFunction<Executable> connect) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // free again once closed: nobody listens there
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        RuntimeException e;
        try {
            e = assertThrows(RuntimeException.class, connect.apply(port));
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        String address = "127.0.0.1:" + port;
        Pattern report = Pattern.compile(".*TCP store at " + Pattern.quote(address)
                + " not reachable yet \\(\\d+ s of 7 s\\): attempt \\d+ failed: .*Connection refused.*");
        long retryLines = log.lines().filter(l -> l.contains("TCP store at " + address + " not reachable yet")).count();
        assertTrue(retryLines >= 1 && retryLines <= 3, "one line per " + WaitReports.defaultInterval()
                + " at most, saw " + retryLines + ":\n" + log);
        assertTrue(log.lines().filter(l -> l.contains(address)).allMatch(l -> report.matcher(l).matches()), log);
        return new Attempt(log, address, e);
    }

    @Test
    void retriesAreLoggedWithAddressAttemptAndLastErrorAndTheFinalErrorIsPrecise() throws Exception {
        Attempt a = connectToNobody(port -> () -> TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port)
                .withTimeout(TIMEOUT)).block(Duration.ofSeconds(30)));
        String m = a.error().getMessage();
        assertTrue(m.contains("no TCP store at " + a.address() + " after 7000 ms") && m.contains("failed attempts")
                && m.contains("last error") && m.contains("Connection refused"), m);
    }

    @Test
    void theTorchStoreClientReportsItsRetriesInTheSameWords() throws Exception {
        Attempt a = connectToNobody(port -> () -> TorchTcpStore.connect("127.0.0.1", port, TIMEOUT)
                .block(Duration.ofSeconds(30)));
        String m = a.error().getMessage();
        assertTrue(m.contains("no torch TCPStore at " + a.address() + " after 7000 ms") && m.contains("failed attempts")
                && m.contains("last error") && m.contains("Connection refused"), m);
    }
}
