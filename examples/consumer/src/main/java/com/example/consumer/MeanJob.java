package com.example.consumer;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.ProcessGroups;
import reactor.core.publisher.Mono;

import java.util.Arrays;

/**
 * A user's own job: every rank contributes {@code [rank, 2 * rank, 1]}, the group averages it and
 * rank 0 prints the mean. The same {@link #mean} runs in a test on a LocalCluster and here, one rank
 * per process, under {@code bin/collectives-run} or torchrun.
 */
public final class MeanJob {

    private MeanJob() {
    }

    /**
     * One rank's part: averages {@code [rank, 2 * rank, 1]} over the group.
     *
     * @param group this rank's group
     * @return the mean, the same on every rank
     */
    public static Mono<float[]> mean(ProcessGroup group) {
        float r = group.rank();
        return Mono.using(() -> Tensor.fromFloats(new float[] {r, 2 * r, 1}),
                t -> group.allReduce(t, ReduceOp.AVG).map(Tensor::toFloatArray),
                Tensor::release);
    }

    /**
     * Joins the group from the launcher's environment, runs {@link #mean} and prints one line per rank.
     *
     * @param args none
     */
    public static void main(String[] args) {
        String line = ProcessGroups.run(group -> mean(group)
                .map(m -> "rank " + group.rank() + " of " + group.size() + ": mean " + Arrays.toString(m)))
                .block();
        System.out.println(line);
    }
}
