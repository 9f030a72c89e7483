package io.reactivecollectives.transport.rendezvous;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A torch 2.x {@code TCPStore} server for tests, on 127.0.0.1, following torch's source
 * ({@code torch/csrc/distributed/c10d/TCPStoreBackend.cpp} and {@code TCPStoreLibUvBackend.cpp},
 * query bytes of {@code TCPStoreBackend.hpp}): a connection must open with {@code VALIDATE} and
 * the magic number {@code 0x3C85F7CE}. {@link Flavor#LEGACY} closes a connection whose first query
 * is not that; {@link Flavor#LIBUV} answers nothing to such a first read, keeps its bytes and reads
 * them as queries when more bytes arrive (libuv's {@code processBuf}: the client is "miscellaneous"
 * for its first read only). The flavors also differ as torch's servers do: a GET or MULTI_GET of a
 * missing key closes the legacy connection and answers an empty value in libuv; compare_set wakes
 * waiters only in libuv. One thread per connection; every byte received is recorded per connection.
 */
final class FakeTorch2Server implements AutoCloseable {

    enum Flavor { LEGACY, LIBUV }

    static final int MAGIC = 0x3C85F7CE;

    private final Flavor flavor;
    private final ServerSocket server;
    private final Map<String, byte[]> store = new HashMap<>();
    private final Map<String, List<Client>> waiting = new HashMap<>();
    private final Map<Client, Integer> keysAwaited = new HashMap<>();
    private final List<Client> clients = new ArrayList<>();

    FakeTorch2Server(Flavor flavor) throws IOException {
        this.flavor = flavor;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread t = new Thread(this::accept, "fake-torch2-accept-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** The bytes each connection sent so far, in the order the connections were accepted. */
    synchronized List<byte[]> received() {
        return clients.stream().map(c -> c.raw.toByteArray()).toList();
    }

    /** Connections the server closed itself (a bad or missing VALIDATE, a failed query). */
    synchronized long closedByServer() {
        return clients.stream().filter(c -> c.closedByServer).count();
    }

    synchronized int waiters() {
        return keysAwaited.size();
    }

    synchronized int numKeys() {
        return store.size();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                Client c = new Client(s);
                synchronized (this) {
                    clients.add(c);
                }
                Thread t = new Thread(c, "fake-torch2-conn-" + s.getPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        List<Client> all;
        synchronized (this) {
            all = List.copyOf(clients);
        }
        all.forEach(c -> c.close(false));
    }

    /** Not enough bytes yet for the query being read. */
    private static final class Incomplete extends Exception {
        Incomplete() {
            super(null, null, false, false);
        }
    }

    /** A query the server rejects by closing the connection (torch: an exception in the handler). */
    private static final class Reject extends Exception {
        Reject(String why) {
            super(why, null, false, false);
        }
    }

    private final class Client implements Runnable {
        final Socket socket;
        final ByteArrayOutputStream raw = new ByteArrayOutputStream();
        byte[] held = new byte[0];
        boolean miscellaneous = true;
        volatile boolean closedByServer;
        ByteBuffer in;

        Client(Socket socket) {
            this.socket = socket;
        }

        @Override
        public void run() {
            byte[] chunk = new byte[64 * 1024];
            try {
                // not try-with-resources: closing the stream closes the socket before the catch marks
                // a close as the server's own
                InputStream is = socket.getInputStream();
                int n;
                while ((n = is.read(chunk)) > 0) {
                    synchronized (FakeTorch2Server.this) {
                        raw.write(chunk, 0, n);
                        byte[] all = Arrays.copyOf(held, held.length + n);
                        System.arraycopy(chunk, 0, all, held.length, n);
                        held = all;
                        process();
                    }
                }
            } catch (IOException | Reject e) {
                close(e instanceof Reject);
            }
            close(false);
        }

        void close(boolean byServer) {
            synchronized (FakeTorch2Server.this) {
                if (byServer) {
                    closedByServer = true;
                }
                clearWaitState();
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed anyway
            }
        }

        /** Reads the held bytes as queries, committing each complete one (libuv's processBuf). */
        void process() throws Reject, IOException {
            while (held.length > 0) {
                in = ByteBuffer.wrap(held).order(ByteOrder.LITTLE_ENDIAN);
                try {
                    int cmd = in.get() & 0xff;
                    if (miscellaneous) {
                        if (flavor == Flavor.LIBUV) {
                            miscellaneous = false;
                            if (cmd != 0 || u32() != MAGIC) {
                                return; // libuv: no answer, bytes kept for the next read
                            }
                        } else {
                            if (cmd != 0) {
                                throw new Reject("Miscellaneous client without VALIDATE query is detected");
                            }
                            if (u32() != MAGIC) {
                                throw new Reject("Miscellaneous client with incorrect VALIDATE query is detected");
                            }
                            miscellaneous = false;
                        }
                    } else {
                        query(cmd);
                    }
                } catch (Incomplete e) {
                    return;
                }
                held = Arrays.copyOfRange(held, in.position(), held.length);
            }
        }

        private void query(int cmd) throws Incomplete, Reject, IOException {
            switch (cmd) {
                case 1 -> set(key(), bytes());
                case 2 -> compareSet(key(), bytes(), bytes());
                case 3 -> {
                    String k = key();
                    send(vector(value(k)));
                }
                case 4 -> add(key(), i64());
                case 5 -> send(new byte[] {(byte) (present(keys()) ? 0 : 1)});
                case 6 -> await(keys());
                case 7 -> send(le(store.size()));
                case 8 -> send(le(store.remove(key()) == null ? 0 : 1));
                case 9 -> {
                    String k = key();
                    byte[] v = bytes();
                    byte[] old = store.getOrDefault(k, new byte[0]);
                    byte[] both = Arrays.copyOf(old, old.length + v.length);
                    System.arraycopy(v, 0, both, old.length, v.length);
                    store.put(k, both);
                    wake(k);
                }
                case 10 -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    for (String k : keys()) {
                        out.writeBytes(vector(value(k)));
                    }
                    send(out.toByteArray());
                }
                case 11 -> multiSet();
                case 12 -> {
                    clearWaitState();
                    send(new byte[] {1});
                }
                case 13 -> send(Arrays.copyOfRange(le(u32()), 0, 4));
                default -> throw new Reject("Unexpected query type " + cmd);
            }
        }

        private void multiSet() throws Incomplete {
            long n = i64();
            List<String> ks = new ArrayList<>();
            List<byte[]> vs = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                ks.add(key());
                vs.add(bytes());
            }
            for (int i = 0; i < ks.size(); i++) {
                set(ks.get(i), vs.get(i));
            }
        }

        private void set(String k, byte[] v) {
            store.put(k, v);
            wake(k);
        }

        private void compareSet(String k, byte[] expected, byte[] desired) throws IOException {
            byte[] cur = store.get(k);
            byte[] reply;
            if (cur == null) {
                if (expected.length == 0) {
                    store.put(k, desired);
                    reply = desired;
                } else {
                    reply = expected;
                }
            } else {
                if (Arrays.equals(cur, expected)) {
                    store.put(k, desired);
                }
                reply = store.get(k);
            }
            send(vector(reply));
            if (flavor == Flavor.LIBUV) {
                wake(k);
            }
        }

        private void add(String k, long delta) throws Reject, IOException {
            byte[] cur = store.get(k);
            long v = delta;
            if (cur != null) {
                try {
                    v += Long.parseLong(new String(cur, StandardCharsets.UTF_8));
                } catch (NumberFormatException e) {
                    throw new Reject("stoll: " + e.getMessage());
                }
            }
            store.put(k, Long.toString(v).getBytes(StandardCharsets.UTF_8));
            send(le(v));
            wake(k);
        }

        private void await(List<String> ks) throws IOException {
            if (present(ks)) {
                send(new byte[] {0});
                return;
            }
            int n = 0;
            for (String k : ks) {
                if (!store.containsKey(k)) {
                    waiting.computeIfAbsent(k, x -> new ArrayList<>()).add(this);
                    n++;
                }
            }
            keysAwaited.put(this, n);
        }

        private byte[] value(String k) throws Reject {
            byte[] v = store.get(k);
            if (v == null && flavor == Flavor.LEGACY) {
                throw new Reject("tcpStore_.at: no key " + k);
            }
            return v == null ? new byte[0] : v;
        }

        private boolean present(List<String> ks) {
            return ks.stream().allMatch(store::containsKey);
        }

        private void clearWaitState() {
            keysAwaited.remove(this);
            waiting.values().forEach(l -> l.remove(this));
            waiting.values().removeIf(List::isEmpty);
        }

        void send(byte[] b) throws IOException {
            OutputStream out = socket.getOutputStream();
            out.write(b);
            out.flush();
        }

        private int u32() throws Incomplete {
            need(4);
            return in.getInt();
        }

        private long i64() throws Incomplete {
            need(8);
            return in.getLong();
        }

        private byte[] bytes() throws Incomplete {
            long n = i64();
            need(n);
            byte[] b = new byte[(int) n];
            in.get(b);
            return b;
        }

        private String key() throws Incomplete {
            return new String(bytes(), StandardCharsets.UTF_8);
        }

        private List<String> keys() throws Incomplete {
            long n = i64();
            List<String> ks = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                ks.add(key());
            }
            return ks;
        }

        private void need(long n) throws Incomplete {
            if (in.remaining() < n) {
                throw new Incomplete();
            }
        }
    }

    /** Wakes the waiters of {@code key} whose last awaited key it was (torch's wakeupWaitingClients). */
    private void wake(String key) {
        List<Client> ws = waiting.remove(key);
        if (ws == null) {
            return;
        }
        for (Client c : ws) {
            Integer left = keysAwaited.get(c);
            if (left != null && left - 1 == 0) {
                keysAwaited.remove(c);
                try {
                    c.send(new byte[] {0});
                } catch (IOException ignored) {
                    // the waiter's connection is gone
                }
            } else if (left != null) {
                keysAwaited.put(c, left - 1);
            }
        }
    }

    static byte[] le(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    static byte[] vector(byte[] v) {
        byte[] out = Arrays.copyOf(le(v.length), 8 + v.length);
        System.arraycopy(v, 0, out, 8, v.length);
        return out;
    }
}
