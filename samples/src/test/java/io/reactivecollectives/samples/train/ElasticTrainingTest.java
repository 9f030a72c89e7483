package io.reactivecollectives.samples.train;

import io.reactivecollectives.testing.LaunchedRanks;
import io.reactivecollectives.tools.launch.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * The main job survives lost ranks (issue 40), with real rank JVMs under {@code collectives-run
 * --max-restarts}: rank 1 is killed (SIGKILL) at 30% of the steps and rank 0, whose process used to
 * hold the store, at 60%. The launcher restarts each alone, the survivors shrink and go on, the
 * restarted process joins with the state streamed to it, and the job ends with every step applied
 * once and identical parameters on all ranks.
 */
class ElasticTrainingTest {

    private static final int STEPS = 3000;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void killedRanksAreRestartedAndJoinWhileTheOthersTrainOn() throws Exception {
        LaunchedRanks.Run.start((out, err) -> Launcher.run(new String[] {
                "--nproc-per-node", "3", "--max-restarts", "2", "--class-data", "off", "--",
                DataParallelTraining.class.getName(), "--steps", "" + STEPS, "--log-every", "100", "--hidden", "64"}, out, err))
                .killRanks1Then0AndExpectRecovery(3, STEPS, 200);
    }
}
