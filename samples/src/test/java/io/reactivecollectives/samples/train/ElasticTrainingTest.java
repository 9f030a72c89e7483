package io.reactivecollectives.samples.train;

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
 * The main job survives lost ranks (issue 40), with real rank JVMs under {@code collectives-run
 * --max-restarts}: rank 1 is killed (SIGKILL) at 30% of the steps and rank 0, whose process used to
 * hold the store, at 60%. The launcher restarts each alone, the survivors shrink and go on, the
 * restarted process joins with the state streamed to it, and the job ends with every step applied
 * once and identical parameters on all ranks.
 */
class ElasticTrainingTest {

    private static final int STEPS = 3000;
    private static final Pattern STEP = Pattern.compile("step +(\\d+)/" + STEPS);

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void killedRanksAreRestartedAndJoinWhileTheOthersTrainOn() throws Exception {
        LaunchedRanks.Output out = new LaunchedRanks.Output();
        LaunchedRanks.Output err = new LaunchedRanks.Output();
        CompletableFuture<Integer> job = CompletableFuture.supplyAsync(() -> Launcher.run(new String[] {
                "--nproc-per-node", "3", "--max-restarts", "2", "--class-data", "off", "--",
                DataParallelTraining.class.getName(), "--steps", "" + STEPS, "--log-every", "100", "--hidden", "64"},
                new PrintStream(out, true), new PrintStream(err, true)));
        long killed1 = LaunchedRanks.killAt(1, STEPS * 30 / 100, STEP, out, job);
        long killed0 = LaunchedRanks.killAt(0, STEPS * 60 / 100, STEP, out, job);
        int code = job.get(200, TimeUnit.SECONDS);
        String o = out.text();
        String e = err.text();
        System.out.println(o);
        assertEquals(0, code, o + e);
        assertTrue(killed1 > 0 && killed0 > 0, "both kills happened: " + killed1 + ", " + killed0);
        assertTrue(e.contains("rank 1 exited with code 137 (SIGKILL); restarting it (restart 1 of 2)"), e);
        assertTrue(e.contains("rank 0 exited with code 137 (SIGKILL); restarting it (restart 1 of 2)"), e);
        assertTrue(o.contains("[rank 1] joined the running job as rank 1 of 3"), o);
        assertTrue(o.contains("[rank 0] joined the running job as rank 0 of 3"), o);
        assertTrue(o.contains("steps: " + STEPS + " of " + STEPS + ", each applied once"), o);
        assertTrue(o.contains("parameters identical on all 3 ranks: yes"), o);
    }
}
