package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.Arrays;

/**
 * All-reduce, then step: each rank holds its own "gradient" (rank + 1 in every element), the group
 * sums them, and every rank applies the same averaged update to its weights, in one {@code Mono}
 * chain: {@code allReduce(grad, SUM).map(average).map(step)}.
 *
 * <pre>bin/collectives-run --nproc-per-node 2 -- io.reactivecollectives.samples.examples.AllReduceThenStep</pre>
 */
public final class AllReduceThenStep {

    private AllReduceThenStep() {
    }

    /** Emits the weights after one step of {@code w -= lr * mean(grad)} from {@code w = 1}. */
    public static Mono<float[]> run(ProcessGroup group, float lr) {
        return Mono.using(
                () -> Tensor.zeros(io.reactivecollectives.core.DType.FLOAT32, 4).fill(group.rank() + 1),
                grad -> group.allReduce(grad, ReduceOp.SUM)
                        .map(sum -> {
                            float[] g = sum.toFloatArray();
                            float[] w = new float[g.length];
                            for (int i = 0; i < g.length; i++) {
                                w[i] = 1f - lr * g[i] / group.size();
                            }
                            return w;
                        }),
                Tensor::release);
    }

    public static void main(String[] args) {
        Ranks.run(group -> run(group, 0.1f)
                .doOnNext(w -> System.out.println("weights after the step: " + Arrays.toString(w))));
    }
}
