package io.reactivecollectives.spark.sample;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

import java.io.File;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Spark sessions for the sample and the tests: {@code local[N]} (one JVM), or
 * {@code local-cluster[W,C,M]}: a standalone master and W workers inside this JVM, each starting an
 * executor JVM of its own, as Spark's own suites run. Those executors start without a Spark
 * distribution: their class path is this JVM's ({@code spark.executor.extraClassPath}), and the
 * launcher needs {@code SPARK_TESTING=1} and {@code SPARK_SCALA_VERSION} in the environment
 * ({@code bin/collectives-spark-train} and the module's Surefire configuration set them) and a Spark
 * home ({@code spark.test.home}: any directory).
 */
public final class SparkContexts {

    /**
     * DJL's settings for every JVM that runs a rank ({@code SparkDjlTraining}): libtorch from the
     * {@code pytorch-native-cpu} jar, never downloaded, one intra-op and one inter-op thread per rank.
     */
    public static final Map<String, String> DJL_PROPERTIES = Map.of("ai.djl.offline", "true",
            "ai.djl.pytorch.num_threads", "1", "ai.djl.pytorch.num_interop_threads", "1",
            "ai.djl.pytorch.graph_optimizer", "false");

    private static final Pattern LOCAL_CLUSTER = Pattern.compile("local-cluster\\[\\s*(\\d+)\\s*,.*");

    private SparkContexts() {
    }

    /**
     * A session on {@code master}; for {@code local-cluster} masters the executors get this JVM's
     * class path, Netty's PARANOID leak detector and {@link #DJL_PROPERTIES}.
     *
     * @param master  {@code local[N]} or {@code local-cluster[W,C,M]}
     * @param appName the application's name
     * @return the session (stop it when done)
     */
    public static SparkSession session(String master, String appName) {
        SparkConf conf = new SparkConf().setMaster(master).setAppName(appName)
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1")
                .set("spark.sql.shuffle.partitions", "2")
                // a failed barrier task fails the job at once (the tests measure that), no retries
                .set("spark.task.maxFailures", "1")
                // a barrier job submitted before every executor registered waits this long to re-check
                .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s");
        if (master.startsWith("local-cluster")) {
            String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            String home = System.getProperty("spark.test.home", new File(System.getProperty("java.io.tmpdir"), "rc-spark-home").getPath());
            new File(home).mkdirs();
            System.setProperty("spark.test.home", home);
            conf.set("spark.executor.extraClassPath", classPath)
                    // (SparkContext adds Spark's own --add-opens for Java 17 to these)
                    .set("spark.executor.extraJavaOptions", "-Dio.netty.leakDetection.level=paranoid " + DJL_PROPERTIES.entrySet()
                            .stream().map(e -> "-D" + e.getKey() + "=" + e.getValue()).sorted().collect(Collectors.joining(" ")))
                    .set("spark.test.home", home);
        }
        SparkSession session = SparkSession.builder().config(conf).getOrCreate();
        Matcher workers = LOCAL_CLUSTER.matcher(master);
        if (workers.matches()) {
            awaitExecutors(session, Integer.parseInt(workers.group(1)));
        }
        return session;
    }

    /**
     * Sets {@link #DJL_PROPERTIES} in this JVM where they are not set yet (before DJL's engine loads:
     * it reads them once).
     */
    public static void djlDefaults() {
        DJL_PROPERTIES.forEach((key, value) -> System.setProperty(key, System.getProperty(key, value)));
    }

    /** Waits (at most a minute) until {@code executors} executors registered, so a barrier stage finds its slots. */
    static void awaitExecutors(SparkSession session, int executors) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        // the status tracker lists the driver too
        while (session.sparkContext().statusTracker().getExecutorInfos().length < executors + 1) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("only " + (session.sparkContext().statusTracker().getExecutorInfos().length - 1)
                        + " of " + executors + " executors registered within 60 s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for executors", e);
            }
        }
    }
}
