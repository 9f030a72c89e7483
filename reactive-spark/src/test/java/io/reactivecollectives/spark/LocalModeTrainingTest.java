package io.reactivecollectives.spark;

import io.reactivecollectives.spark.sample.SparkContexts;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining;
import io.reactivecollectives.spark.sample.SparkDataParallelTraining.RankResult;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sample in {@code local[2]}: both ranks are threads of this JVM. */
class LocalModeTrainingTest {

    static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = SparkContexts.session("local[2]", "LocalModeTrainingTest");
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sampleTrainsInLocalMode() {
        List<RankResult> results = SparkDataParallelTraining.train(spark, 2, new SparkDataParallelTraining.Settings(120, 32, 1024, 20));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = SparkDataParallelTraining.report(new PrintStream(buf, true, StandardCharsets.UTF_8), "local[2]", results, 120, 32);
        String text = buf.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertTrue(ok, text);
        assertEquals(ProcessHandle.current().pid(), results.get(0).pid(), text);
        assertEquals(1024, results.get(1).shardRows(), text);
    }
}
