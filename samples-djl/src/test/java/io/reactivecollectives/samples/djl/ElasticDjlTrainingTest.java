package io.reactivecollectives.samples.djl;

import io.reactivecollectives.testing.LaunchedRanks;
import io.reactivecollectives.tools.launch.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The DJL main job survives lost ranks (issue 40), real rank JVMs under {@code collectives-run
 * --max-restarts}: rank 1 is killed (SIGKILL) at 30% of the steps and rank 0 at 60%; each is
 * restarted alone, builds the model, joins with the parameters, the optimizer's state and the step
 * streamed to it, and the job ends with every step applied once and identical parameters.
 */
class ElasticDjlTrainingTest {

    private static final int STEPS = 1200;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void killedRanksAreRestartedAndJoinWithTheModelAndOptimizerWhileTheOthersTrainOn() throws Exception {
        LaunchedRanks.Run.start((out, err) -> Launcher.run(new String[] {
                "--nproc-per-node", "3", "--max-restarts", "2", "--class-data", "off", "--",
                DjlTraining.class.getName(), "--preset", "tiny", "--steps", "" + STEPS, "--batch", "8",
                "--log-every", "20", "--warmup-steps", "0"}, out, err))
                .killRanks1Then0AndExpectRecovery(3, STEPS, 220);
    }
}
