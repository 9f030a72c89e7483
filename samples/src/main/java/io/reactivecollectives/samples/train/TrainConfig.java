package io.reactivecollectives.samples.train;

import java.util.Arrays;

/**
 * Settings of a data-parallel training run.
 *
 * @param dims           layer widths, input first, classes last
 * @param batch          samples per rank per step (the global batch is {@code world x batch})
 * @param steps          optimizer steps
 * @param lr             learning rate
 * @param momentum       SGD momentum
 * @param seed           seed of the task and of the initial weights (rank 0's are broadcast)
 * @param hook           communication hook: {@code allreduce}, {@code fp16}, {@code bf16}, {@code powersgd}
 * @param streaming      send each layer's gradient through {@code allReduceStream} instead of the bucketed reducer
 * @param bucketCapBytes bucket size limit after the first bucket
 * @param firstBucketBytes limit of the first bucket
 * @param prefetch       chunks in flight in streaming mode
 * @param logEvery       print a line every this many steps on rank 0 (0: never)
 * @param progressBar    draw a progress bar on rank 0
 * @param warmupSteps    steps run before the timing starts (the JIT compiles the step meanwhile)
 */
public record TrainConfig(int[] dims, int batch, int steps, float lr, float momentum, long seed, String hook,
                          boolean streaming, long bucketCapBytes, long firstBucketBytes, int prefetch,
                          int logEvery, boolean progressBar, int warmupSteps) {

    public TrainConfig {
        dims = dims.clone();
        if (dims.length < 2 || Arrays.stream(dims).anyMatch(d -> d < 1)) {
            throw new IllegalArgumentException("dims must hold >= 2 positive widths, got " + Arrays.toString(dims));
        }
        if (batch < 1 || steps < 0 || prefetch < 1 || warmupSteps < 0) {
            throw new IllegalArgumentException("batch and prefetch must be >= 1, steps and warmupSteps >= 0");
        }
    }

    /** The default run: MLP 32-128-128-8, batch 32 per rank, plain all-reduce hook, quiet. */
    public static TrainConfig defaults() {
        return new TrainConfig(new int[] {32, 128, 128, 8}, 32, 2000, 0.05f, 0.9f, 7, "allreduce",
                false, 64L << 10, 16L << 10, 2, 0, false, 50);
    }

    public TrainConfig withSteps(int s) {
        return new TrainConfig(dims, batch, s, lr, momentum, seed, hook, streaming, bucketCapBytes, firstBucketBytes, prefetch, logEvery, progressBar, warmupSteps);
    }

    public TrainConfig withBatch(int b) {
        return new TrainConfig(dims, b, steps, lr, momentum, seed, hook, streaming, bucketCapBytes, firstBucketBytes, prefetch, logEvery, progressBar, warmupSteps);
    }

    public TrainConfig withHook(String h) {
        return new TrainConfig(dims, batch, steps, lr, momentum, seed, h, streaming, bucketCapBytes, firstBucketBytes, prefetch, logEvery, progressBar, warmupSteps);
    }

    public TrainConfig withStreaming(boolean s) {
        return new TrainConfig(dims, batch, steps, lr, momentum, seed, hook, s, bucketCapBytes, firstBucketBytes, prefetch, logEvery, progressBar, warmupSteps);
    }

    public TrainConfig withBuckets(long cap, long first) {
        return new TrainConfig(dims, batch, steps, lr, momentum, seed, hook, streaming, cap, first, prefetch, logEvery, progressBar, warmupSteps);
    }

    public TrainConfig withDims(int... d) {
        return new TrainConfig(d, batch, steps, lr, momentum, seed, hook, streaming, bucketCapBytes, firstBucketBytes, prefetch, logEvery, progressBar, warmupSteps);
    }

    public TrainConfig withWarmupSteps(int w) {
        return new TrainConfig(dims, batch, steps, lr, momentum, seed, hook, streaming, bucketCapBytes, firstBucketBytes, prefetch, logEvery, progressBar, w);
    }

    public TrainConfig withOutput(int every, boolean bar) {
        return new TrainConfig(dims, batch, steps, lr, momentum, seed, hook, streaming, bucketCapBytes, firstBucketBytes, prefetch, every, bar, warmupSteps);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TrainConfig t && Arrays.equals(dims, t.dims) && batch == t.batch && steps == t.steps
                && lr == t.lr && momentum == t.momentum && seed == t.seed && hook.equals(t.hook) && streaming == t.streaming
                && bucketCapBytes == t.bucketCapBytes && firstBucketBytes == t.firstBucketBytes && prefetch == t.prefetch
                && logEvery == t.logEvery && progressBar == t.progressBar && warmupSteps == t.warmupSteps;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(dims) * 31 + Integer.hashCode(batch) * 17 + steps;
    }

    @Override
    public String toString() {
        return "TrainConfig[dims=" + Arrays.toString(dims) + ", batch=" + batch + ", steps=" + steps + ", lr=" + lr
                + ", momentum=" + momentum + ", seed=" + seed + ", hook=" + hook + ", streaming=" + streaming + "]";
    }
}
