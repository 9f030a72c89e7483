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

    /**
     * The DJL sample with both ranks in this JVM, under BlockHound: DJL's engine and every step run
     * off the network threads, and the two trainers take turns for DJL's one gradient collector.
     */
    @Test
    void djlSampleTrainsInLocalMode() {
        SparkDjlTraining.Settings settings = new SparkDjlTraining.Settings(
                "tiny", 0.1f, 7, new SparkDataParallelTraining.Settings(40, 32, 256, 8));
        List<RankResult> results = SparkDjlTraining.train(spark, 2, settings);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        boolean ok = SparkDjlTraining.report(new PrintStream(buf, true, StandardCharsets.UTF_8),
                "local[2]", results, settings);
        String text = buf.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertTrue(ok, text);
        assertTrue(text.contains("parameters identical on all 2 ranks: yes"), text);
        assertEquals(ProcessHandle.current().pid(), results.get(1).pid(), text);
        assertEquals(256, results.get(0).shardRows(), text);
    }

    @Test
    void eachTaskServesItsLiveViewAndRankZeroTheStagesPage() throws Exception {
        org.apache.spark.api.java.JavaSparkContext sc = org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext());
        List<String> answers = BarrierRdds.mapPartitions(sc.parallelize(List.of(1, 2), 2), it -> {
            io.reactivecollectives.transport.MeshProcessGroup group = io.reactivecollectives.transport.ProcessGroups
                    .fromEnvironment(System.getenv(), io.reactivecollectives.transport.GroupOptions.defaults()
                            .withDashboard(io.reactivecollectives.transport.DashboardOptions.loopback(0)))
                    .block(java.time.Duration.ofMinutes(1));
            io.reactivecollectives.core.Tensor t = io.reactivecollectives.core.Tensor.fromFloats(new float[] {it.next()});
            try {
                group.allReduce(t, io.reactivecollectives.core.ReduceOp.SUM).block(java.time.Duration.ofSeconds(30));
                String page = io.reactivecollectives.dashboard.DashboardServer.address(group.view(), 0, java.time.Duration.ofSeconds(10))
                        .block(java.time.Duration.ofSeconds(20));
                java.net.http.HttpResponse<String> job = java.net.http.HttpClient.newHttpClient().send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create(page + "/api/job")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                // both barrier at the end: neither closes its group (and its dashboard) before the other read
                group.barrier().block(java.time.Duration.ofSeconds(30));
                return List.of(group.rank() + " " + job.statusCode() + " " + job.body()).iterator();
            } finally {
                t.release();
                group.close();
            }
        }).collect();
        assertEquals(2, answers.size());
        for (String a : answers) {
            assertTrue(a.matches("[01] 200 \\{.*"), a);
            assertTrue(a.contains("\"size\":2") && a.contains("\"reachable\":true") && !a.contains("\"reachable\":false"), a);
            assertTrue(a.contains("\"op\":\"allReduce\""), a);
        }
    }
}
