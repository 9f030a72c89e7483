package io.reactivecollectives.transport.rendezvous;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

import javax.net.ssl.KeyManagerFactory;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HMAC challenge-response and TLS on the TCP store. */
class TcpStoreSecurityTest {

    private static final Duration T = Duration.ofSeconds(10);
    private static final byte[] SECRET = "correct horse battery staple".getBytes(StandardCharsets.UTF_8);

    private static TcpStoreOptions opts(TcpStoreServer server) {
        return TcpStoreOptions.of("127.0.0.1", server.port()).withTimeout(Duration.ofSeconds(5));
    }

    @Test
    void rightSecretWorks() {
        TcpStoreServer server = TcpStoreServer.builder().secret(SECRET).start().block(T);
        try (TcpStore store = TcpStore.connect(opts(server).withSecret(SECRET)).block(T)) {
            store.set("k", "v".getBytes(StandardCharsets.UTF_8)).block(T);
            assertEquals("v", new String(store.get("k").block(T), StandardCharsets.UTF_8));
            assertEquals(0, server.authenticationFailures());
        } finally {
            server.close();
        }
    }

    @Test
    void wrongSecretIsRejectedAtOnceAndSeesNothing() {
        TcpStoreServer server = TcpStoreServer.builder().secret(SECRET).start().block(T);
        try (TcpStore good = TcpStore.connect(opts(server).withSecret(SECRET)).block(T)) {
            good.set("secret-key", new byte[] {1}).block(T);
            long start = System.nanoTime();
            StepVerifier.create(TcpStore.connect(opts(server).withSecret("guess".getBytes(StandardCharsets.UTF_8))))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e instanceof StoreAuthenticationException, e.toString());
                        assertTrue(e.getMessage().contains("rejected"), e.getMessage());
                    })
                    .verify(T);
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "a rejected secret must not be retried");
            assertEquals(1, server.authenticationFailures());
            // a client without any secret is told the server needs one
            StepVerifier.create(TcpStore.connect(opts(server)))
                    .expectErrorSatisfies(e -> assertTrue(e instanceof StoreAuthenticationException
                            && e.getMessage().contains(StoreAuth.SECRET_ENV), e.toString()))
                    .verify(T);
            // the honest client is unaffected
            assertArrayEquals(new byte[] {1}, good.get("secret-key").block(T));
        } finally {
            server.close();
        }
    }

    @Test
    void requestsBeforeAuthenticationAreRejectedBeforeAnyKeyIsRead() throws Exception {
        TcpStoreServer server = TcpStoreServer.builder().secret(SECRET).start().block(T);
        try (Socket raw = new Socket("127.0.0.1", server.port())) {
            raw.setSoTimeout(5000);
            DataInputStream in = new DataInputStream(raw.getInputStream());
            int helloLength = in.readInt();
            in.readFully(new byte[helloLength]);
            // a GET for a key, without authenticating first
            io.netty.buffer.ByteBuf frame = StoreFrameCodec.get(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, 7, "k", 1000);
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            frame.release();
            new DataOutputStream(raw.getOutputStream()).write(bytes);
            assertEquals(-1, readToEnd(raw.getInputStream()), "the server must close the connection");
            assertEquals(1, server.rejectedFrames());
        } finally {
            server.close();
        }
        // an oversized frame before authentication is cut off at the handshake limit
        TcpStoreServer server2 = TcpStoreServer.builder().secret(SECRET).start().block(T);
        try (Socket raw = new Socket("127.0.0.1", server2.port())) {
            raw.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());
            out.writeInt(StoreFrameCodec.HANDSHAKE_MAX_FRAME + 1);
            out.flush();
            assertEquals(-1, readToEnd(raw.getInputStream()));
        } finally {
            server2.close();
        }
    }

    private static int readToEnd(InputStream in) throws Exception {
        try {
            while (in.read() >= 0) {
                // skip the HELLO / error frame
            }
            return -1;
        } catch (EOFException | java.net.SocketException e) {
            return -1;
        }
    }

    @Test
    void secretComesFromTheEnvironment() {
        assertArrayEquals(SECRET, StoreAuth.secretFrom(Map.of(StoreAuth.SECRET_ENV, new String(SECRET, StandardCharsets.UTF_8))));
        assertNull(StoreAuth.secretFrom(Map.of()));
        assertNull(StoreAuth.secretFrom(Map.of(StoreAuth.SECRET_ENV, "")));
    }

    @Test
    void tlsRoundTripWithAuthentication(@TempDir Path dir) throws Exception {
        TestCertificates.SelfSigned self = TestCertificates.create(dir, "store");
        KeyManagerFactory kmf = self.keys();
        File cert = self.certificate();
        SslContext serverSsl = SslContextBuilder.forServer(kmf).build();
        SslContext clientSsl = SslContextBuilder.forClient().trustManager(cert).build();

        TcpStoreServer server = TcpStoreServer.builder().ssl(serverSsl).secret(SECRET).start().block(T);
        try (TcpStore store = TcpStore.connect(opts(server).withSsl(clientSsl).withSecret(SECRET)).block(T)) {
            // TLS is never bypassed through the server's local socket: there is none, and the client went over TCP
            assertNull(server.localSocket());
            assertFalse(store.isLocalSocket(), store.toString());
            byte[] value = new byte[100_000];
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) (i * 31);
            }
            store.set("tls", value).block(T);
            assertArrayEquals(value, store.get("tls").block(T));
            assertEquals(3L, store.add("n", 3).block(T));
            // a plain-TCP client cannot talk to the TLS server: its connect runs out
            StepVerifier.create(TcpStore.connect(opts(server).withSecret(SECRET).withTimeout(Duration.ofMillis(800))))
                    .expectError()
                    .verify(T);
            assertTrue(store.check(List.of("tls")).block(T));
            assertFalse(store.check(List.of("nope")).block(T));
        } finally {
            server.close();
        }
        assertThrows(IllegalArgumentException.class, () -> TcpStoreServer.builder().ssl(clientSsl));
    }

    @Test
    void aServerCertificateTheClientDoesNotTrustFailsTheConnectAtOnce(@TempDir Path dir) throws Exception {
        // before: retried for the whole connect timeout ("not reachable yet ... PKIX path building failed")
        TestCertificates.SelfSigned server = TestCertificates.create(dir, "store");
        TestCertificates.SelfSigned other = TestCertificates.create(dir, "other");
        SslContext serverSsl = SslContextBuilder.forServer(server.keys()).build();
        SslContext trustsOther = SslContextBuilder.forClient().trustManager(other.certificate()).build();
        TcpStoreServer s = TcpStoreServer.builder().ssl(serverSsl).start().block(T);
        try {
            long t0 = System.nanoTime();
            StepVerifier.create(TcpStore.connect(opts(s).withSsl(trustsOther).withTimeout(Duration.ofSeconds(30))))
                    .expectErrorSatisfies(e -> {
                        assertTrue(e.getMessage().contains("failed on its certificate"), e.getMessage());
                        assertTrue(e.getMessage().contains("RC_STORE_TLS_CA"), e.getMessage());
                    })
                    .verify(T);
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos(), "failed at once, not after the timeout");
        } finally {
            s.close();
        }
    }
}
