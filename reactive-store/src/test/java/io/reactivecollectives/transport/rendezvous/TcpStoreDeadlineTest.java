package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@link TcpStore} call has a deadline: against a fake server (a plain {@link ServerSocket} on
 * loopback) that greets the client and then answers nothing, each kind of call fails within its
 * deadline with a {@link StoreTimeoutException} naming the operation, its key and the address.
 */
class TcpStoreDeadlineTest {

    private static final Duration OP = Duration.ofMillis(700);
    private static final Duration WAIT = Duration.ofMillis(400);
    /** The connect timeout (the first connect of a JVM loads Netty), and the wait of multiGet. */
    private static final Duration TIMEOUT = Duration.ofSeconds(4);

    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /**
     * A server that accepts, sends HELLO when {@code greet}, then reads (and drops) everything when
     * {@code read}, never answering; returns its port.
     */
    private int silentServer(boolean greet, boolean read) throws IOException {
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        open.add(ss);
        byte[] hello;
        ByteBuf buf = StoreHandshakeCodec.hello(UnpooledByteBufAllocator.DEFAULT, false, new byte[0]);
        try {
            hello = ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
        Thread t = new Thread(() -> {
            while (!ss.isClosed()) {
                try {
                    Socket s = ss.accept();
                    open.add(s);
                    if (greet) {
                        s.getOutputStream().write(hello);
                        s.getOutputStream().flush();
                    }
                    if (read) {
                        Thread reader = new Thread(() -> drain(s), "silent-store-reader");
                        reader.setDaemon(true);
                        reader.start();
                    }
                } catch (IOException closed) {
                    return;
                }
            }
        }, "silent-store-acceptor");
        t.setDaemon(true);
        t.start();
        return ss.getLocalPort();
    }

    private static void drain(Socket s) {
        byte[] sink = new byte[8192];
        try (InputStream in = s.getInputStream()) {
            while (in.read(sink) >= 0) {
                // dropped: this server never answers
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private TcpStore connect(TcpStoreOptions extra) {
        TcpStore store = TcpStore.connect(extra).block(Duration.ofSeconds(10));
        assertNotNull(store);
        open.add(store);
        return store;
    }

    private record Outcome(String name, Throwable error, long millis) { }

    @Test
    void everyCallFailsWithinItsDeadlineNamingTheOperationKeyAndAddress() throws IOException {
        int port = silentServer(true, true);
        String address = "127.0.0.1:" + port;
        TcpStore store = connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(TIMEOUT).withOperationTimeout(OP));
        long margin = OP.toMillis(); // below TcpStore.LOCAL_GRACE: the margin of a waiting call is the operation timeout
        Map<String, Mono<?>> calls = new LinkedHashMap<>();
        calls.put("set(\"k-set\")", store.set("k-set", new byte[]{1}));
        calls.put("get(\"k-get\")", store.get("k-get", WAIT));
        calls.put("add(\"k-add\")", store.add("k-add", 1));
        calls.put("compareSet(\"k-cas\")", store.compareSet("k-cas", new byte[0], new byte[]{1}));
        calls.put("await(\"k-a1\", \"k-a2\")", store.await(List.of("k-a1", "k-a2"), WAIT));
        calls.put("check(\"k-check\")", store.check(List.of("k-check")));
        calls.put("delete(\"k-del\")", store.delete("k-del"));
        calls.put("numKeys()", store.numKeys());
        calls.put("multiGet(\"k-mg\")", store.multiGet(List.of("k-mg")));
        calls.put("multiSet(\"k-ms\")", store.multiSet(Map.of("k-ms", new byte[]{1})));
        calls.put("append(\"k-app\")", store.append("k-app", new byte[]{1}));
        Map<String, Long> deadlines = new LinkedHashMap<>();
        calls.keySet().forEach(name -> deadlines.put(name, OP.toMillis()));
        deadlines.put("get(\"k-get\")", WAIT.toMillis() + margin);
        deadlines.put("await(\"k-a1\", \"k-a2\")", WAIT.toMillis() + margin);
        deadlines.put("multiGet(\"k-mg\")", TIMEOUT.toMillis() + margin);

        List<Outcome> outcomes = Flux.fromIterable(calls.entrySet())
                .flatMap(e -> Mono.defer(() -> {
                    long start = System.nanoTime();
                    return e.getValue()
                            .then(Mono.<Outcome>error(new AssertionError(e.getKey() + " was answered by a silent server")))
                            .onErrorResume(x -> !(x instanceof AssertionError), x -> Mono.just(
                                    new Outcome(e.getKey(), x, (System.nanoTime() - start) / 1_000_000)));
                }))
                .collectList()
                .block(Duration.ofSeconds(20));
        assertNotNull(outcomes);
        assertEquals(calls.size(), outcomes.size());
        List<String> problems = new ArrayList<>();
        for (Outcome o : outcomes) {
            long deadline = deadlines.get(o.name());
            String msg = String.valueOf(o.error().getMessage());
            if (!(o.error() instanceof StoreTimeoutException te)) {
                problems.add(o.name() + ": " + o.error());
                continue;
            }
            if (!msg.startsWith("store " + o.name() + " at " + address + ": no reply within " + deadline + " ms")) {
                problems.add(o.name() + ": message " + msg);
            }
            if (!address.equals(te.address())) {
                problems.add(o.name() + ": address " + te.address());
            }
            if (o.millis() < deadline - 50 || o.millis() > deadline + 2000) {
                problems.add(o.name() + ": failed after " + o.millis() + " ms, deadline " + deadline + " ms");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void unacknowledgedSetsFailWhenTheServerReadsNothing() throws IOException {
        int port = silentServer(true, false);
        TcpStore store = connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(TIMEOUT).withOperationTimeout(OP)
                .withAcknowledgedSets(false));
        byte[] value = new byte[1 << 20];
        Throwable failure = null;
        int sent = 0;
        long start = System.nanoTime();
        for (int i = 0; i < 256 && failure == null; i++) { // the socket buffers fill after a few MiB at most
            try {
                store.set("big" + i, value).block(Duration.ofSeconds(10));
                sent++;
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        assertNotNull(failure, "all " + sent + " sets of 1 MiB went to a server that reads nothing");
        assertTrue(failure instanceof StoreTimeoutException, failure.toString());
        assertTrue(failure.getMessage().startsWith("store set(\"big" + sent + "\") at 127.0.0.1:" + port
                + ": no reply within " + OP.toMillis() + " ms"), failure.getMessage());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(15).toNanos());
    }

    @Test
    void aServerThatAcceptsButNeverGreetsFailsTheConnectNamingIt() throws IOException {
        int port = silentServer(false, true);
        long start = System.nanoTime();
        Throwable e = TcpStore.connect(TcpStoreOptions.of("127.0.0.1", port).withTimeout(Duration.ofMillis(800)))
                .then(Mono.<Throwable>empty())
                .onErrorResume(Mono::just)
                .block(Duration.ofSeconds(10));
        assertNotNull(e, "connected to a server that never greets");
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms >= 750 && ms < 5000, ms + " ms");
        assertTrue(e.getMessage().contains("127.0.0.1:" + port) && e.getMessage().contains("800 ms")
                && e.getMessage().contains("did not complete the handshake"), e.getMessage());
    }
}
