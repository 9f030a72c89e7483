package io.reactivecollectives.samples.djl;

import io.reactivecollectives.transport.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The DJL main job: its options, and a run of the tiny preset on 2 real ranks. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DjlTrainingTest {

    private static DjlTraining parsed(String... args) {
        DjlTraining cmd = new DjlTraining();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void badOptionsAreRefusedTogetherBeforeAnyRankStarts() {
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> parsed("--steps", "0", "--hook", "gzip", "--preset", "huge", "--lr", "-1", "--nosync-steps", "-2").validate());
        assertTrue(e.getMessage().contains("--steps must be >= 1, got 0"), e.getMessage());
        assertTrue(e.getMessage().contains("--hook gzip is not one of allreduce, fp16, bf16, powersgd"), e.getMessage());
        assertTrue(e.getMessage().contains("--preset huge is not one of base, tiny"), e.getMessage());
        assertTrue(e.getMessage().contains("--lr must be a finite number > 0"), e.getMessage());
        assertTrue(e.getMessage().contains("--nosync-steps must be >= 0, got -2"), e.getMessage());
        assertTrue(assertThrows(CommandLine.ParameterException.class, () -> parsed("--steps", "5", "--warmup-steps", "5").validate())
                .getMessage().contains("leaves no timed step"));
    }

    @Test
    void theLearningRateDefaultsToThePresets() {
        assertEquals(0.003f, parsed().settings().lr());
        assertEquals(0.05f, parsed("--preset", "tiny").settings().lr());
        assertEquals(0.2f, parsed("--preset", "tiny", "--lr", "0.2").settings().lr());
    }

    /** 500 samples per rank: every epoch ends in a batch of 4; then 4 steps under no_sync, which apply nothing. */
    @Test
    void twoRanksTrainTheTinyEncoderAndEndIdentical() {
        DjlTraining cmd = parsed("--preset", "tiny", "--steps", "120", "--batch", "16", "--samples", "1000", "--warmup-steps", "10",
                "--nosync-steps", "4");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);
        try (LocalCluster cluster = LocalCluster.start(2).block(Duration.ofSeconds(60))) {
            List<DjlTrainingRun.Outcome> outcomes = cluster.run(g -> new DjlTrainingRun(cmd.settings(), out).train(g))
                    .block(Duration.ofSeconds(150));
            String printed = text.toString(StandardCharsets.UTF_8);
            for (DjlTrainingRun.Outcome o : outcomes) {
                assertTrue(o.identical(), printed);
                assertEquals(EncoderConfig.TINY.parameterCount(), o.parameters());
                assertTrue(o.meanLoss() < Math.log(EncoderConfig.TINY.classes()) - 0.1,
                        "the loss fell below chance (ln 4 = 1.386): " + o.meanLoss() + "\n" + printed);
            }
            assertTrue(printed.contains("step   120/120"), printed);
            assertTrue(outcomes.stream().allMatch(o -> Double.isFinite(o.exposedCommMs())),
                    "the communication not hidden, as DDP's benchmark measures it, after the no_sync steps");
        }
    }
}
