package io.reactivecollectives.spark;

import io.reactivecollectives.spark.sample.SparkContexts;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining.RankResult;
import io.reactivecollectives.spark.sample.SparkDjlTraining;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DJL sample ({@link SparkDjlTraining}) in {@code local-cluster[2,1,1024]}: the transformer
 * encoder's tiny preset trained by two barrier tasks, each in an executor JVM of its own that loads
 * DJL's PyTorch engine.
 */
class SparkDjlTrainingTest {

    static final int STEPS = 60;
    static final int BATCH = 32;
    static final int SHARD_ROWS = 512;

    static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkContexts.session("local-cluster[2,1,1024]", "SparkDjlTrainingTest");
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    /** Loss falls (mean of the last 10 steps below the first 10's), parameters agree, ranks in two executor JVMs. */
    @Test
    void tinyEncoderTrainsAcrossExecutorJvms() {
        SparkDjlTraining.Settings settings = new SparkDjlTraining.Settings("tiny", 0.1f, 7,
                new SparkDataParallelTraining.Settings(STEPS, BATCH, SHARD_ROWS, 10));
        List<RankResult> results = SparkDjlTraining.train(spark, 2, settings);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = SparkDjlTraining.report(new PrintStream(buf, true, StandardCharsets.UTF_8), "local-cluster[2,1,1024]",
                results, settings);
        String text = buf.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertTrue(ok, text);
        assertEquals(2, results.size(), text);
        double[] mean = new double[STEPS];
        for (RankResult r : results) {
            assertEquals(SHARD_ROWS, r.shardRows(), text);
            assertEquals(STEPS, r.losses().length, text);
            assertTrue(r.same(), "rank " + r.rank() + " saw different parameters: " + text);
            assertTrue(r.msPerStep() > 0, text);
            for (int s = 0; s < STEPS; s++) {
                assertTrue(Double.isFinite(r.losses()[s]), "rank " + r.rank() + " step " + s + ": " + text);
                mean[s] += r.losses()[s] / results.size();
            }
        }
        double first = Arrays.stream(mean, 0, 10).average().orElseThrow();
        double last = Arrays.stream(mean, STEPS - 10, STEPS).average().orElseThrow();
        assertTrue(last < first, "loss from " + first + " to " + last + ": " + text);
        assertTrue(text.contains("parameters identical on all 2 ranks: yes"), text);
        long driver = ProcessHandle.current().pid();
        assertNotEquals(results.get(0).pid(), results.get(1).pid(), "both ranks ran in one JVM: " + text);
        assertNotEquals(driver, results.get(0).pid(), text);
        assertNotEquals(driver, results.get(1).pid(), text);
    }
}
