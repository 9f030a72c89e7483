package io.reactivecollectives.spark;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.spark.sample.SparkContexts;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining.RankResult;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.TlsOptions;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Groups of barrier tasks in {@code local-cluster[2,1,1024]}: two executor JVMs besides this one (one
 * session for the class; its start-up is most of the time).
 */
class LocalClusterBarrierGroupTest {

    /** How soon the other task's group must be aborted after a task fails (measured: tens of ms). */
    static final long PROMPT_MS = 3_000;

    static SparkSession spark;
    static JavaSparkContext sc;

    @BeforeAll
    static void start() {
        spark = SparkContexts.session("local-cluster[2,1,1024]", "LocalClusterBarrierGroupTest");
        sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    /** Partition r contributes (r+1, 10(r+1)); both get (3, 30), each in its own executor JVM. */
    @Test
    void allReduceAcrossTwoExecutorJvms() {
        List<String> out = BarrierRdds.mapPartitions(sc.parallelize(List.of(0, 1), 2), it -> {
            MeshProcessGroup g = BarrierProcessGroups.connect(GroupOptions.defaults().withSecret("spark-test-secret"))
                    .block(Duration.ofSeconds(60));
            Tensor t = Tensor.fromFloats(new float[] {g.rank() + 1, 10 * (g.rank() + 1)});
            try {
                g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(30));
                float[] r = t.toFloatArray();
                return List.of(g.rank() + " " + ProcessHandle.current().pid() + " " + r[0] + " " + r[1]).iterator();
            } finally {
                t.release();
            }
        }).collect();
        assertEquals(2, out.size(), out.toString());
        String[] a = out.get(0).split(" ");
        String[] b = out.get(1).split(" ");
        assertEquals("0", a[0]);
        assertEquals("1", b[0]);
        assertNotEquals(a[1], b[1], "the two ranks ran in one JVM: " + out);
        String driver = Long.toString(ProcessHandle.current().pid());
        assertNotEquals(driver, a[1]);
        assertNotEquals(driver, b[1]);
        for (String[] r : List.of(a, b)) {
            assertEquals("3.0", r[2], out.toString());
            assertEquals("30.0", r[3], out.toString());
        }
    }

    /**
     * Mutual TLS and the shared secret, on the mesh and on partition 0's store: the executors read a
     * self-signed certificate (made here with the JDK's keytool) and all-reduce over TLS.
     */
    @Test
    void allReduceOverTlsWithASharedSecret(@TempDir Path dir) throws Exception {
        Path keystore = dir.resolve("rank.p12");
        Path cert = dir.resolve("rank.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "rank", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-keystore", keystore.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", "rank", "-keystore", keystore.toString(), "-storepass", "changeit",
                "-file", cert.toString());
        String ks = keystore.toString();
        String pem = cert.toString();
        List<String> out = BarrierRdds.mapPartitions(sc.parallelize(List.of(0, 1), 2), it -> {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(Path.of(ks))) {
                store.load(in, "changeit".toCharArray());
            }
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, "changeit".toCharArray());
            TlsOptions tls = new TlsOptions(
                    SslContextBuilder.forServer(keys).trustManager(new File(pem)).clientAuth(ClientAuth.REQUIRE).build(),
                    SslContextBuilder.forClient().keyManager(keys).trustManager(new File(pem)).build());
            MeshProcessGroup g = BarrierProcessGroups.connect(GroupOptions.defaults().withTls(tls).withSecret("s3cret"))
                    .block(Duration.ofSeconds(60));
            Tensor t = Tensor.fromFloats(new float[] {g.rank() + 1});
            try {
                g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(30));
                return List.of(g.rank() + " " + t.toFloatArray()[0] + " " + g.transportTo(1 - g.rank())).iterator();
            } finally {
                t.release();
            }
        }).collect();
        assertEquals(2, out.size(), out.toString());
        for (String r : out) {
            assertTrue(r.split(" ")[1].equals("3.0"), out.toString());
        }
        System.out.println("over TLS: " + out);
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool hung");
        assertEquals(0, p.exitValue(), "keytool failed: " + text);
    }

    /**
     * Rank 1 throws while rank 0 waits in an all-reduce (collective timeout 2 minutes): rank 0's
     * collective fails within {@link #PROMPT_MS}, naming rank 1, and the job fails with rank 1's error.
     */
    @Test
    void failedTaskFailsTheOtherPromptly(@TempDir Path dir) throws Exception {
        String d = dir.toString();
        SparkException e = assertThrows(SparkException.class, () -> BarrierRdds.mapPartitions(sc.parallelize(List.of(0, 1), 2), it -> {
                    MeshProcessGroup g = BarrierProcessGroups.connect(GroupOptions.defaults()
                            .withTimeout(Duration.ofMinutes(2))).block(Duration.ofSeconds(60));
                    Tensor t = Tensor.fromFloats(new float[] {1, 2, 3});
                    try {
                        g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(30)); // both ranks connected and working
                        if (g.rank() == 1) {
                            Markers.await(Path.of(d, "rank0-waiting"));
                            Markers.write(Path.of(d, "rank1-failed"), Long.toString(System.currentTimeMillis()));
                            throw new IllegalStateException("boom from rank 1");
                        }
                        Markers.write(Path.of(d, "rank0-waiting"), "");
                        try {
                            g.allReduce(t, ReduceOp.SUM).block(Duration.ofMinutes(3));
                        } catch (RuntimeException failed) {
                            Markers.write(Path.of(d, "rank0-failed"), System.currentTimeMillis() + " " + failed);
                            throw failed;
                        }
                        return List.of("rank 0's second all-reduce completed").iterator();
                    } finally {
                        t.release();
                    }
                }).collect());
        assertTrue(e.getMessage().contains("boom from rank 1"), e.getMessage());
        long failedAt = Long.parseLong(Markers.read(dir.resolve("rank1-failed")).trim());
        String[] rank0 = Markers.awaitRead(dir.resolve("rank0-failed")).split(" ", 2);
        long delay = Long.parseLong(rank0[0]) - failedAt;
        System.out.println("rank 0's all-reduce failed " + delay + " ms after rank 1's task failed: " + rank0[1]);
        assertTrue(delay < PROMPT_MS, "rank 0 learnt of rank 1's failure after " + delay + " ms: " + rank0[1]);
        assertTrue(rank0[1].contains("rank 1") || rank0[1].contains("peer 1"), rank0[1]);
    }

    /**
     * Rank 0 computes (no collective in flight) when rank 1 fails: Spark kills rank 0's task without
     * interrupting it, and its group is aborted (closed) within {@link #PROMPT_MS} all the same.
     */
    @Test
    void killedTaskHasItsGroupAbortedWhileComputing(@TempDir Path dir) throws Exception {
        String d = dir.toString();
        SparkException e = assertThrows(SparkException.class, () -> BarrierRdds.mapPartitions(sc.parallelize(List.of(0, 1), 2), it -> {
                    MeshProcessGroup g = BarrierProcessGroups.connect(GroupOptions.defaults()).block(Duration.ofSeconds(60));
                    g.barrier().block(Duration.ofSeconds(30));
                    if (g.rank() == 1) {
                        Markers.await(Path.of(d, "rank0-computing"));
                        Markers.write(Path.of(d, "rank1-failed"), Long.toString(System.currentTimeMillis()));
                        throw new IllegalStateException("boom from rank 1");
                    }
                    Markers.write(Path.of(d, "rank0-computing"), "");
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (!g.isClosed() && System.currentTimeMillis() < deadline) {
                        Thread.sleep(2); // the "computation": never looks at Spark's kill flag
                    }
                    Markers.write(Path.of(d, "rank0-closed"), Long.toString(System.currentTimeMillis()));
                    return List.of("rank 0 done").iterator();
                }).collect());
        assertTrue(e.getMessage().contains("boom from rank 1"), e.getMessage());
        long failedAt = Long.parseLong(Markers.read(dir.resolve("rank1-failed")).trim());
        long delay = Long.parseLong(Markers.awaitRead(dir.resolve("rank0-closed")).trim()) - failedAt;
        System.out.println("rank 0's group was aborted " + delay + " ms after rank 1's task failed");
        assertTrue(delay < PROMPT_MS, "rank 0's group was aborted " + delay + " ms after rank 1 failed");
    }

    /** Outside a barrier stage the group is refused with an error that says to use one. */
    @Test
    void notABarrierStageIsAClearError() {
        SparkException e = assertThrows(SparkException.class, () -> sc.parallelize(List.of(0, 1), 2)
                .mapPartitions(it -> {
                    BarrierProcessGroups.connect(GroupOptions.defaults()).block(Duration.ofSeconds(30));
                    return List.of("connected").iterator();
                }).collect());
        assertTrue(e.getMessage().contains("is not a barrier stage") && e.getMessage().contains("rdd.barrier()"),
                e.getMessage());
    }

    /**
     * Three tasks on two single-core executors never start together: refused at once on the driver
     * (Spark itself would re-check its slots for minutes before failing the job).
     */
    @Test
    void moreTasksThanSlotsIsAClearErrorAtOnce() {
        long start = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> BarrierRdds.mapPartitions(sc.parallelize(List.of(0, 1, 2), 3), it -> it));
        assertTrue(e.getMessage().contains("3 tasks") && e.getMessage().contains("2 task slot(s)"), e.getMessage());
        assertTrue(System.nanoTime() - start < 1_000_000_000L, "the check took over a second");
    }

    /** The sample across the two executor JVMs: loss falls, parameters agree. */
    @Test
    void sampleTrainsAcrossExecutorJvms() {
        List<RankResult> results = SparkDataParallelTraining.train(spark, 2, new SparkDataParallelTraining.Settings(120, 32, 1024, 20));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = SparkDataParallelTraining.report(new PrintStream(buf, true, StandardCharsets.UTF_8),
                "local-cluster[2,1,1024]", results, 120, 32);
        String text = buf.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertTrue(ok, text);
        assertNotEquals(results.get(0).pid(), results.get(1).pid(), text);
        assertTrue(text.contains("parameters identical on all 2 ranks: yes"), text);
    }

    /** Marker files between the tasks (the executors share this machine's file system). */
    static final class Markers {
        static void write(Path p, String s) throws Exception {
            Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
            Files.writeString(tmp, s);
            Files.move(tmp, p, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }

        static void await(Path p) throws Exception {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!Files.exists(p)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no " + p + " within 30 s");
                }
                Thread.sleep(5);
            }
        }

        static String awaitRead(Path p) throws Exception {
            await(p);
            return Files.readString(p);
        }

        static String read(Path p) throws Exception {
            return Files.readString(p);
        }
    }
}
