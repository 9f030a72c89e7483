package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * N ranks with batch b reach the parameters one process reaches with batch N x b: the defining
 * property of data-parallel training, checked on real ranks over loopback.
 */
class DataParallelTrainingTest {

    private static final TrainConfig BASE = TrainConfig.defaults().withDims(12, 24, 16, 4).withSteps(30)
            .withBuckets(512, 256); // several buckets for this small model

    private static List<TrainResult> train(int world, TrainConfig cfg) {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
        Function<ProcessGroup, Mono<TrainResult>> body = g -> new DataParallelTrainer(cfg, quiet).train(g);
        LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(30));
        try {
            return cluster.run(body).block(Duration.ofSeconds(120));
        } finally {
            cluster.close();
        }
    }

    private static void assertSameAsOneProcess(TrainConfig cfg, int world, int batch) {
        TrainResult single = train(1, cfg.withBatch(world * batch)).get(0);
        List<TrainResult> parallel = train(world, cfg.withBatch(batch));
        assertEquals(world, parallel.size());
        for (TrainResult r : parallel) {
            assertEquals(world, r.world());
            assertArrayEquals(parallel.get(0).finalParameters(), r.finalParameters(),
                    "rank " + r.rank() + " must hold exactly rank 0's parameters");
            float[] a = single.finalParameters();
            float[] b = r.finalParameters();
            for (int i = 0; i < a.length; i++) {
                assertEquals(a[i], b[i], 1e-4 + 1e-4 * Math.abs(a[i]), "parameter " + i + " on rank " + r.rank());
            }
        }
        // the parameters moved away from the initialisation, and the loss went down
        assertTrue(single.losses()[0] > single.finalLoss(), "loss should fall: " + single.losses()[0] + " -> " + single.finalLoss());
    }

    @Test
    void theProgressBarEndsWithOne100PercentLine() {
        java.io.PrintStream err = System.err;
        ByteArrayOutputStream bar = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bar, true)); // the bar draws on stderr
        try {
            train(1, BASE.withSteps(20).withOutput(0, true));
        } finally {
            System.setErr(err);
        }
        String text = bar.toString(java.nio.charset.StandardCharsets.UTF_8);
        // what a terminal shows: each line as its last \r redraw left it
        long full = java.util.Arrays.stream(text.split("\n")).map(l -> l.substring(l.lastIndexOf('\r') + 1))
                .filter(l -> l.contains("100%")).count();
        assertEquals(1, full, "the last line once: '" + text + "'");
        assertTrue(text.contains("20/20"), text);
    }

    @Test
    void bucketedTwoRanksMatchOneProcessWithTheGlobalBatch() {
        assertSameAsOneProcess(BASE, 2, 8);
    }

    @Test
    void streamingThreeRanksMatchOneProcessWithTheGlobalBatch() {
        assertSameAsOneProcess(BASE.withStreaming(true), 3, 4);
    }

    @Test
    void compressedHooksKeepRanksIdenticalAndStillLearn() {
        for (String hook : List.of("fp16", "powersgd")) {
            List<TrainResult> rs = train(2, BASE.withHook(hook).withSteps(150).withBatch(16));
            assertArrayEquals(rs.get(0).finalParameters(), rs.get(1).finalParameters(), hook);
            double first = (rs.get(0).losses()[0] + rs.get(0).losses()[1] + rs.get(0).losses()[2]) / 3;
            double last = (rs.get(0).losses()[147] + rs.get(0).losses()[148] + rs.get(0).losses()[149]) / 3;
            assertTrue(last < first, hook + ": loss " + first + " -> " + last);
        }
    }
}
