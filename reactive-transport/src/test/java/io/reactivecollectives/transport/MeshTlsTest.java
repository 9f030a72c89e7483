package io.reactivecollectives.transport;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.transport.rendezvous.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mutual TLS between ranks: every connection is TCP through TLS, and a rank without it cannot join. */
class MeshTlsTest {

    @TempDir
    static Path dir;
    static TlsOptions tls;

    @BeforeAll
    static void certificate() throws Exception {
        TestCertificates.SelfSigned self = TestCertificates.create(dir, "rank");
        KeyManagerFactory kmf = self.keys();
        File cert = self.certificate();
        tls = new TlsOptions(SslContextBuilder.forServer(kmf).trustManager(cert).clientAuth(ClientAuth.REQUIRE).build(),
                SslContextBuilder.forClient().keyManager(kmf).trustManager(cert).build());
    }

    @Test
    void ranksTalkThroughTlsOverTcpOnly() {
        ClusterTesting.withCluster(3, GroupOptions.defaults().withGroupId("tls").withTls(tls), cluster -> {
            for (int r = 0; r < 3; r++) {
                for (int q = 0; q < 3; q++) {
                    if (q != r) {
                        assertEquals("tcp", cluster.group(r).transportTo(q), "no Unix socket bypasses TLS");
                    }
                }
            }
            List<Tensor> out = cluster.run(g -> g.allReduce(ClusterTesting.filled(DType.FLOAT32, 300_000, g.rank() + 1),
                    ReduceOp.SUM)).block(ClusterTesting.TIMEOUT);
            for (Tensor t : out) {
                assertEquals(6.0, t.getDouble(299_999));
                t.release();
            }
            return null;
        });
    }

    @Test
    void aRankWithoutTlsCannotJoin() {
        HashStore store = new HashStore();
        GroupOptions base = GroupOptions.defaults().withGroupId("tls-mixed").withConnectTimeout(Duration.ofSeconds(3));
        var withTls = MeshProcessGroup.connect(store, 0, 2, base.withTls(tls)).toFuture();
        var plain = MeshProcessGroup.connect(store, 1, 2, base).toFuture();
        assertThrows(Exception.class, () -> plain.get(20, TimeUnit.SECONDS).close());
        assertThrows(Exception.class, () -> withTls.get(20, TimeUnit.SECONDS).close());
    }
}
