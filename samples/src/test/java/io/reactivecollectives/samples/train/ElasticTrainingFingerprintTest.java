package io.reactivecollectives.samples.train;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The elastic job's fingerprint, which a joiner must share with the members to be admitted, holds
 * every setting that changes the training: a replacement started with another learning rate or
 * momentum was admitted and trained on with it (the audit's run ended with parameters that differed
 * across the ranks).
 */
class ElasticTrainingFingerprintTest {

    @Test
    void everySettingThatChangesTheTrainingChangesTheFingerprint() {
        TrainConfig base = TrainConfig.defaults();
        String members = ElasticTraining.fingerprint(base);
        assertEquals(members, ElasticTraining.fingerprint(TrainConfig.defaults()));
        // output and timing settings do not change the training
        assertEquals(members, ElasticTraining.fingerprint(base.withOutput(10, true)));
        List<TrainConfig> others = List.of(
                with(base, 0.5f, base.momentum()),                        // --lr
                with(base, base.lr(), 0.0f),                              // --momentum
                with(base, 0.05000001f, base.momentum()),                 // --lr, a float apart
                base.withBatch(base.batch() + 1),
                base.withSteps(base.steps() + 1),
                base.withDims(32, 64, 8),
                base.withHook("fp16"),
                base.withStreaming(true),
                new TrainConfig(base.dims(), base.batch(), base.steps(), base.lr(), base.momentum(), base.seed() + 1,
                        base.hook(), base.streaming(), base.bucketCapBytes(), base.firstBucketBytes(), base.prefetch(),
                        base.logEvery(), base.progressBar(), base.warmupSteps()));
        for (TrainConfig other : others) {
            assertNotEquals(members, ElasticTraining.fingerprint(other), "a joiner with " + other + " would be admitted");
        }
    }

    private static TrainConfig with(TrainConfig c, float lr, float momentum) {
        return new TrainConfig(c.dims(), c.batch(), c.steps(), lr, momentum, c.seed(), c.hook(), c.streaming(),
                c.bucketCapBytes(), c.firstBucketBytes(), c.prefetch(), c.logEvery(), c.progressBar(), c.warmupSteps());
    }
}
