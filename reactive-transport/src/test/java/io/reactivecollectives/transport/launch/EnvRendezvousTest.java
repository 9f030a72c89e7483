package io.reactivecollectives.transport.launch;

import io.reactivecollectives.transport.rendezvous.StoreAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading torchrun's, Slurm's and Open MPI's variables, and a two-rank rendezvous built from them. */
class EnvRendezvousTest {

    private static final Duration T = Duration.ofSeconds(20);

    private static IllegalArgumentException bad(Map<String, String> env) {
        return assertThrows(IllegalArgumentException.class, () -> EnvRendezvous.resolve(env));
    }

    private static void assertNames(IllegalArgumentException e, String... names) {
        for (String n : names) {
            assertTrue(e.getMessage().contains(n), "'" + e.getMessage() + "' should name " + n);
        }
    }

    @Test
    void torchrunVariables() {
        LaunchEnvironment l = EnvRendezvous.resolve(Map.of("MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29400",
                "RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1",
                "SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0"));
        assertEquals(new LaunchEnvironment("torchrun", "10.0.0.1", 29400, 5, 8, 1), l);
        java.util.Map<String, String> ours = new java.util.HashMap<>(Map.of("MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29400",
                "RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1"));
        ours.put(EnvRendezvous.MAX_RESTARTS_ENV, "0");
        assertEquals("collectives-run", EnvRendezvous.resolve(ours).launcher(), "collectives-run's ranks say so in the log");
        assertNames(bad(Map.of("RANK", "1")), "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE");
        assertFalse(bad(Map.of("RANK", "1")).getMessage().contains("RANK,"), "RANK is present");
        // no LOCAL_RANK: read as a PyTorchJob, and the message says why
        assertEquals("PyTorchJob launch: missing environment variable(s) RANK (no LOCAL_RANK: read as a Kubernetes "
                + "PyTorchJob launch; torchrun and collectives-run set LOCAL_RANK)",
                bad(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1", "WORLD_SIZE", "4")).getMessage());
        assertFalse(bad(Map.of("MASTER_ADDR", "h", "RANK", "1", "WORLD_SIZE", "4", "LOCAL_RANK", "1")).getMessage()
                .contains("PyTorchJob"), "with LOCAL_RANK it is torchrun's");
        assertNames(bad(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1", "RANK", "4", "WORLD_SIZE", "4", "LOCAL_RANK", "0")),
                "RANK=4", "WORLD_SIZE=4");
        assertNames(bad(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1", "RANK", "x", "WORLD_SIZE", "4", "LOCAL_RANK", "0")),
                "RANK='x'");
        assertNames(bad(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "70000", "RANK", "0", "WORLD_SIZE", "4", "LOCAL_RANK", "0")),
                "MASTER_PORT=70000");
        assertNames(bad(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1", "RANK", "1", "WORLD_SIZE", "4", "LOCAL_RANK", "-1")),
                "LOCAL_RANK=-1");
        assertNames(bad(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "0", "RANK", "1", "WORLD_SIZE", "4", "LOCAL_RANK", "1")),
                "MASTER_PORT=0", "RANK=1");
    }

    @Test
    void slurmVariables() {
        Map<String, String> env = new HashMap<>(Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "4", "SLURM_LOCALID", "1",
                "SLURM_JOB_NODELIST", "node[03-05,07]"));
        assertEquals(new LaunchEnvironment("Slurm", "node03", EnvRendezvous.DEFAULT_MASTER_PORT, 3, 4, 1),
                EnvRendezvous.resolve(env));
        env.put("MASTER_PORT", "31000");
        assertEquals(31000, EnvRendezvous.resolve(env).masterPort());
        env.put("MASTER_ADDR", "login1");
        assertEquals("login1", EnvRendezvous.resolve(env).masterAddr());
        assertNames(bad(Map.of("SLURM_PROCID", "0", "SLURM_JOB_NODELIST", "n1")), "SLURM_NTASKS", "SLURM_LOCALID");
        assertNames(bad(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0")),
                "MASTER_ADDR", "SLURM_JOB_NODELIST");
        assertNames(bad(Map.of("SLURM_PROCID", "2", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0", "SLURM_JOB_NODELIST", "n1")),
                "SLURM_PROCID=2", "SLURM_NTASKS=2");
        assertNames(bad(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0", "SLURM_JOB_NODELIST", "n[1-")),
                "SLURM_JOB_NODELIST");
    }

    @Test
    void slurmNodeLists() {
        assertEquals("node03", SlurmNodeList.firstHost("node[03-05,07]"));
        assertEquals("a1", SlurmNodeList.firstHost("a1,b[1-2]"));
        assertEquals("gpu7", SlurmNodeList.firstHost("gpu[7,9-12],cpu[1-4]"));
        assertEquals("rack1-gpu01", SlurmNodeList.firstHost("rack[1-2]-gpu[01-04]"));
        assertEquals("n1-ib", SlurmNodeList.firstHost("n[1-3]-ib"));
        assertEquals("single", SlurmNodeList.firstHost("single"));
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.firstHost("node[03"));
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.firstHost("node]"));
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.firstHost("node[a-b]"));
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.firstHost(" "));
    }

    @Test
    void openMpiVariables() {
        assertEquals(new LaunchEnvironment("Open MPI", "head", 29500, 2, 3, 0), EnvRendezvous.resolve(Map.of(
                "OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "3", "OMPI_COMM_WORLD_LOCAL_RANK", "0",
                "MASTER_ADDR", "head")));
        assertNames(bad(Map.of("OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "3")),
                "OMPI_COMM_WORLD_LOCAL_RANK", "MASTER_ADDR");
        assertNames(bad(Map.of()), "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK");
    }

    @Test
    void mpirunInsideASlurmAllocationIsOpenMpisAndASlurmScriptsWorldSizeIsNotAPyTorchJob() {
        // before: the batch step's SLURM_* won, every process ran as "rank 0 of 1" and exited 0 alone
        Map<String, String> env = new HashMap<>(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "1", "SLURM_LOCALID", "0",
                "SLURM_JOB_NODELIST", "node1", "OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
                "OMPI_COMM_WORLD_LOCAL_RANK", "1", "MASTER_ADDR", "node1"));
        assertEquals(new LaunchEnvironment("Open MPI", "node1", 29500, 1, 2, 1), EnvRendezvous.resolve(env));
        // before: an sbatch script's exported WORLD_SIZE made it a PyTorchJob missing MASTER_PORT and RANK
        Map<String, String> slurm = new HashMap<>(Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_LOCALID", "1",
                "SLURM_JOB_NODELIST", "node1", "WORLD_SIZE", "2"));
        assertEquals(new LaunchEnvironment("Slurm", "node1", 29500, 1, 2, 1), EnvRendezvous.resolve(slurm));
    }

    private static Map<String, String> torchrun(int rank, int port, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", Integer.toString(port),
                "RANK", Integer.toString(rank), "WORLD_SIZE", "2", "LOCAL_RANK", Integer.toString(rank),
                EnvRendezvous.BIND_ENV, "127.0.0.1"));
        env.putAll(extra);
        return env;
    }

    @Test
    void twoRanksMeetThroughTheEmbeddedServer() {
        twoRanks(Map.of(), Map.of());
    }

    @Test
    void twoRanksWithASecretAndAWrongOne() {
        Map<String, String> secret = Map.of("RC_STORE_SECRET", "s3cret");
        twoRanks(secret, secret);
        try (Rendezvous r0 = EnvRendezvous.connect(torchrun(0, 0, secret), T).block(T)) {
            int port = r0.server().port();
            StepVerifier.create(EnvRendezvous.connect(torchrun(1, port, Map.of("RC_STORE_SECRET", "guess")), T))
                    .expectError(StoreAuthenticationException.class)
                    .verify(T);
        }
    }

    @Test
    void twoRanksOverTlsFromPemFiles(@TempDir Path dir) throws Exception {
        Path ks = dir.resolve("s.p12");
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(List.of(keytool, "-genkeypair", "-alias", "s", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-keystore", ks.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit"));
        run(List.of(keytool, "-exportcert", "-rfc", "-alias", "s", "-keystore", ks.toString(), "-storepass", "changeit",
                "-file", cert.toString()));
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        Key k = store.getKey("s", "changeit".toCharArray());
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(k.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        twoRanks(Map.of(EnvRendezvous.TLS_CERT_ENV, cert.toString(), EnvRendezvous.TLS_KEY_ENV, key.toString()),
                Map.of(EnvRendezvous.TLS_CA_ENV, cert.toString()));
        // rank 0 with a certificate but no key: told which variable is missing, nothing started
        StepVerifier.create(EnvRendezvous.connect(torchrun(0, 0, Map.of(EnvRendezvous.TLS_CERT_ENV, cert.toString())), T))
                .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalArgumentException
                        && e.getMessage().contains(EnvRendezvous.TLS_KEY_ENV), e.toString()))
                .verify(T);
    }

    private static void twoRanks(Map<String, String> extra0, Map<String, String> extra1) {
        try (Rendezvous r0 = EnvRendezvous.connect(torchrun(0, 0, extra0), T).block(T)) {
            assertTrue(r0.embeddedServer().isPresent());
            int port = r0.server().port();
            try (Rendezvous r1 = EnvRendezvous.connect(torchrun(1, port, extra1), T).block(T)) {
                assertFalse(r1.embeddedServer().isPresent());
                assertEquals(List.of(0, 1, 2, 0), List.of(r0.rank(), r1.rank(), r1.worldSize(), r0.localRank()));
                assertEquals("torchrun", r1.launcher());
                r0.store().set("from0", new byte[] {0}).block(T);
                r1.store().set("from1", new byte[] {1}).block(T);
                assertEquals(1, r0.store().get("from1").block(T)[0]);
                assertEquals(0, r1.store().get("from0").block(T)[0]);
                assertEquals(2L, r0.store().add("joined", 1).then(r1.store().add("joined", 1)).block(T));
            }
        }
    }

    /** collectives-run's agent store: the launcher serves it; every rank, 0 included, is a client. */
    @Test
    void withTheLaunchersStoreNoRankServesAndEveryRankIsAClient() {
        Map<String, String> secret = Map.of("RC_STORE_SECRET", "s3cret");
        try (var server = EnvRendezvous.startLauncherStore(secret, 0, b -> b).block(T)) {
            Map<String, String> agent = new HashMap<>(secret);
            agent.put(EnvRendezvous.AGENT_STORE_RC_ENV, "1");
            try (Rendezvous r0 = EnvRendezvous.connect(torchrun(0, server.port(), agent), T).block(T);
                 Rendezvous r1 = EnvRendezvous.connect(torchrun(1, server.port(), agent), T).block(T)) {
                assertFalse(r0.embeddedServer().isPresent(), "rank 0 starts no server");
                assertFalse(r1.embeddedServer().isPresent());
                r0.store().set("from0", new byte[] {7}).block(T);
                assertEquals(7, r1.store().get("from0").block(T)[0]);
            }
            // rank 0 closed: the launcher's store still answers
            Map<String, String> again = new HashMap<>(agent);
            again.put(EnvRendezvous.AGENT_STORE_RC_ENV, "true");
            try (Rendezvous r0 = EnvRendezvous.connect(torchrun(0, server.port(), again), T).block(T)) {
                assertEquals(7, r0.store().get("from0").block(T)[0]);
            }
        }
        Map<String, String> portZero = new HashMap<>(Map.of(EnvRendezvous.AGENT_STORE_RC_ENV, "1"));
        StepVerifier.create(EnvRendezvous.connect(torchrun(0, 0, portZero), T))
                .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalArgumentException
                        && e.getMessage().contains("RC_AGENT_STORE=1 needs"), e.toString()))
                .verify(T);
    }

    @Test
    void aStorePortAnotherProcessHoldsIsNamedWithWhatToDo() throws Exception {
        // before: a raw ChannelBindException ("Failed to bind on [...]: Address already in use")
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            StepVerifier.create(EnvRendezvous.connect(torchrun(0, taken.getLocalPort(), Map.of()), T))
                    .expectErrorSatisfies(e -> {
                        String m = e.getMessage();
                        assertTrue(m.contains("rank 0 cannot serve the store on 127.0.0.1:" + taken.getLocalPort()), m);
                        assertTrue(m.contains("another job") && m.contains("MASTER_PORT"), m);
                    })
                    .verify(T);
        }
    }

    @Test
    void tlsFilesThatAreMissingOrNotPemAreNamedByTheirVariable(@TempDir Path dir) throws Exception {
        // before: Netty's "File does not contain valid private key: ..." for a file that does not exist
        Path cert = dir.resolve("cert.pem");
        Files.writeString(cert, "not a certificate");
        Map<String, String> missingKey = Map.of(EnvRendezvous.TLS_CERT_ENV, cert.toString(),
                EnvRendezvous.TLS_KEY_ENV, dir.resolve("nope.pem").toString());
        StepVerifier.create(EnvRendezvous.connect(torchrun(0, 0, missingKey), T))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("RC_STORE_TLS_KEY=")
                        && e.getMessage().contains("is missing"), e.getMessage()))
                .verify(T);
        Map<String, String> caIsADirectory = Map.of(EnvRendezvous.TLS_CERT_ENV, cert.toString(), "RC_STORE_TLS_CA", dir.toString());
        StepVerifier.create(EnvRendezvous.connect(torchrun(1, 29999, caIsADirectory), T))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("RC_STORE_TLS_CA=")
                        && e.getMessage().contains("a directory"), e.getMessage()))
                .verify(T);
        StepVerifier.create(EnvRendezvous.connect(torchrun(1, 29999, Map.of(EnvRendezvous.TLS_CERT_ENV, cert.toString())), T))
                .expectErrorSatisfies(e -> assertTrue(e.getMessage().contains("RC_STORE_TLS_CERT")
                        && e.getMessage().contains("holds no PEM certificate"), e.getMessage()))
                .verify(T);
    }

    @Test
    void invalidEnvironmentFailsTheMonoAndStartsNothing() {
        StepVerifier.create(EnvRendezvous.connect(Map.of("RANK", "0"), T))
                .expectErrorSatisfies(e -> assertTrue(e instanceof IllegalArgumentException
                        && e.getMessage().contains("WORLD_SIZE"), e.toString()))
                .verify(T);
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
    }
}
