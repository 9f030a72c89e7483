package io.reactivecollectives.spark;

import io.reactivecollectives.spark.sample.SparkDataParallelTraining;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * collectives-spark-train's values are checked before Spark starts, and a refusal on the driver is one
 * line with exit code 2. Before, --steps 0 ended in an ArrayIndexOutOfBoundsException after the job
 * ran, --steps abc in a NumberFormatException, --ranks 0 / --batch 0 / --shard-rows 0 in exceptions
 * from the barrier stage, --master foo in SparkException's trace, and --ranks 3 on local[2] in
 * BarrierRdds's IllegalStateException trace: all exit code 1, all stack traces.
 */
class SparkTrainCommandLineTest {

    private static final Map<String, String> DEFAULTS = Map.of("--steps", "300", "--batch", "32", "--shard-rows", "4096");

    @Test
    void badValuesAreOneLineNamingTheOption() {
        String[][] cases = {
            {"--steps", "0", "--steps must be >= 1, got 0"},
            {"--steps", "-1", "--steps must be >= 1, got -1"},
            {"--steps", "abc", "--steps must be a whole number >= 1, got abc"},
            {"--ranks", "0", "--ranks must be >= 1, got 0"},
            {"--batch", "0", "--batch must be >= 1, got 0"},
            {"--shard-rows", "0", "--shard-rows must be >= 1, got 0"},
            {"--ranks", "99999999999", "--ranks must be a whole number >= 1, got 99999999999"},
            {"--master", "foo", "--master foo is not a Spark master URL (local, local[N], local[*], local-cluster[W,C,M],"
                    + " spark://HOST:PORT, k8s://..., yarn)"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SparkDataParallelTraining.options(new String[] {c[0], c[1]}, DEFAULTS), c[0] + " " + c[1]);
            assertEquals(c[2], e.getMessage());
        }
        Map<String, String> djl = Map.of("--lr", "0.1", "--seed", "7", "--steps", "60");
        assertEquals("--lr must be a positive number, got -0.1",
                assertThrows(IllegalArgumentException.class, () -> SparkDataParallelTraining.options(new String[] {"--lr", "-0.1"}, djl))
                        .getMessage());
        assertEquals("--lr must be a positive number, got x",
                assertThrows(IllegalArgumentException.class, () -> SparkDataParallelTraining.options(new String[] {"--lr", "x"}, djl))
                        .getMessage());
        assertEquals("--seed must be a whole number, got 1.5",
                assertThrows(IllegalArgumentException.class, () -> SparkDataParallelTraining.options(new String[] {"--seed", "1.5"}, djl))
                        .getMessage());
        for (String master : new String[] {"local", "local[2]", "local[*]", "local[2,3]", "local-cluster[2,1,1024]", "spark://h:7077", "yarn"}) {
            assertEquals(master, SparkDataParallelTraining.options(new String[] {"--master", master}, DEFAULTS).get("--master"));
        }
        assertEquals("-4", SparkDataParallelTraining.options(new String[] {"--seed", "-4"}, djl).get("--seed"));
    }

    /** More ranks than the master has task slots: BarrierRdds's refusal, one line, exit code 2, no trace. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void moreRanksThanTaskSlotsIsOneLineWithExitCode2() throws Exception {
        String err = sample(SparkDataParallelTraining.class, "--master", "local[2]", "--ranks", "3", "--steps", "5");
        assertTrue(err.contains("collectives-spark-train: collectives of 3 ranks need a barrier stage of 3 tasks running at once,"
                + " but master local[2] has 2 task slot(s)"), err);
    }

    /** An unknown DJL preset: before, EncoderConfig's IllegalArgumentException with its trace, exit code 1. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anUnknownPresetIsOneLineWithExitCode2() throws Exception {
        String err = sample(io.reactivecollectives.spark.sample.SparkDjlTraining.class, "--preset", "huge");
        assertEquals(List.of("collectives-spark-train --engine djl: --preset: unknown preset huge (base, tiny)"),
                err.lines().filter(l -> !l.startsWith("WARNING: Using incubator modules")).toList());
    }

    /** Runs a sample's main in a JVM of its own; {@return its standard error}, once it exited 2 without a trace. */
    private static String sample(Class<?> main, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-") || a.startsWith("-XX:+IgnoreUnrecognized") || a.startsWith("-Djdk.reflect")
                        || a.startsWith("-Dio.netty.tryReflection"))
                .forEach(cmd::add);
        cmd.addAll(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=error", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                main.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process p = pb.start();
        p.getOutputStream().close();
        try {
            assertTrue(p.waitFor(100, TimeUnit.SECONDS), "the sample did not end");
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(2, p.exitValue(), err);
            assertFalse(err.contains("\tat "), err);
            return err;
        } finally {
            p.destroyForcibly();
        }
    }
}
