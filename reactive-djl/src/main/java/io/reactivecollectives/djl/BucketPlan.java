package io.reactivecollectives.djl;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ddp.CommHook;
import io.reactivecollectives.core.ddp.GradientReducer;
import io.reactivecollectives.core.ddp.Parameter;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * How a {@link DistributedTrainer}'s gradients travel: DDP's bucket caps, a bucket that ends with
 * its stage when the backward pass runs by stages, and the parameters sent by their rows.
 */
final class BucketPlan {

    private BucketPlan() {
    }

    /**
     * The reducer of {@code ps} (in registration order; {@code index} gives each one's position).
     *
     * @param bucketCapBytes   the bucket cap, 0 for DDP's default
     * @param firstBucketBytes the first bucket's cap, 0 for DDP's default
     * @param stageParameters  each stage's parameter positions, or null when the pass is not staged
     * @param rowSparse        which parameters (by name) go by rows ({@link RowSparseGradients})
     */
    static GradientReducer reducer(ProcessGroup group, CommHook hook, List<Parameter> ps, Map<Parameter, Integer> index,
                                   long bucketCapBytes, long firstBucketBytes, int[][] stageParameters,
                                   Predicate<String> rowSparse) {
        GradientReducer.Builder b = GradientReducer.builder(group).hook(hook);
        for (Parameter p : ps) {
            if (rowSparse.test(p.name())) {
                b.sparseParameter(p);
            } else {
                b.parameter(p);
            }
        }
        if (bucketCapBytes > 0) {
            b.bucketCapBytes(bucketCapBytes);
        }
        if (firstBucketBytes > 0) {
            b.firstBucketBytes(firstBucketBytes);
        }
        if (stageParameters != null) { // a bucket does not wait for the next stage: it leaves when its own is differentiated
            int[] stageOf = StagePlan.stageOf(stageParameters, ps.size());
            b.stageOf(p -> stageOf[index.get(p)]);
        }
        return b.build();
    }
}
