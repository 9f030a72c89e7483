package io.reactivecollectives.samples.djl;

import io.reactivecollectives.testing.LaunchedRanks;
import io.reactivecollectives.tools.launch.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The DJL main job survives lost ranks (issue 40), real rank JVMs under {@code collectives-run
 * --max-restarts}: rank 1 is killed (SIGKILL) at 30% of the steps and rank 0 at 60%; each is
 * restarted alone, builds the model, joins with the parameters, the optimizer's state and the step
 * streamed to it, and the job ends with every step applied once and identical parameters.
 */
class ElasticDjlTrainingTest {

    private static final int STEPS = 1200;
    private static final Pattern STEP = Pattern.compile("step +(\\d+)/" + STEPS);

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void killedRanksAreRestartedAndJoinWithTheModelAndOptimizerWhileTheOthersTrainOn() throws Exception {
        LaunchedRanks.Output out = new LaunchedRanks.Output();
        LaunchedRanks.Output err = new LaunchedRanks.Output();
        CompletableFuture<Integer> job = CompletableFuture.supplyAsync(() -> Launcher.run(new String[] {
                "--nproc-per-node", "3", "--max-restarts", "2", "--class-data", "off", "--",
                DjlTraining.class.getName(), "--preset", "tiny", "--steps", "" + STEPS, "--batch", "8",
                "--log-every", "20", "--warmup-steps", "0"},
                new PrintStream(out, true), new PrintStream(err, true)));
        long killed1 = LaunchedRanks.killAt(1, STEPS * 30 / 100, STEP, out, job);
        long killed0 = LaunchedRanks.killAt(0, STEPS * 60 / 100, STEP, out, job);
        int code = job.get(220, TimeUnit.SECONDS);
        String o = out.text();
        String e = err.text();
        System.out.println(o);
        assertEquals(0, code, o + e);
        assertTrue(killed1 > 0 && killed0 > 0, "both kills happened: " + killed1 + ", " + killed0 + "\n" + o);
        assertTrue(e.contains("rank 1 exited with code 137 (SIGKILL); restarting it (restart 1 of 2)"), e);
        assertTrue(e.contains("rank 0 exited with code 137 (SIGKILL); restarting it (restart 1 of 2)"), e);
        assertTrue(o.contains("[rank 1] joined the running job as rank 1 of 3"), o);
        assertTrue(o.contains("[rank 0] joined the running job as rank 0 of 3"), o);
        assertTrue(o.contains("steps: " + STEPS + " of " + STEPS + ", each applied once"), o);
        assertTrue(o.contains("parameters identical on all 3 ranks: yes"), o);
    }
}
