package io.reactivecollectives.transport.rendezvous;

import javax.net.ssl.KeyManagerFactory;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A self-signed EC certificate for localhost / 127.0.0.1 made with the JDK's keytool, for TLS tests. */
public final class TestCertificates {

    /**
     * @param keys        the private key and certificate, for a server or a client that proves itself
     * @param certificate the certificate as PEM, to trust
     */
    public record SelfSigned(KeyManagerFactory keys, File certificate) {
    }

    private TestCertificates() {
    }

    /** Makes one in {@code dir} (two files named after {@code alias}). */
    public static SelfSigned create(Path dir, String alias) throws Exception {
        File keystore = dir.resolve(alias + ".p12").toFile();
        File cert = dir.resolve(alias + ".pem").toFile();
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(List.of(keytool, "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
                "-validity", "2", "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost",
                "-keystore", keystore.getPath(), "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit"));
        run(List.of(keytool, "-exportcert", "-rfc", "-alias", alias, "-keystore", keystore.getPath(),
                "-storepass", "changeit", "-file", cert.getPath()));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore.toPath())) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        return new SelfSigned(kmf, cert);
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool hung");
        assertEquals(0, p.exitValue(), "keytool failed: " + out);
    }
}
