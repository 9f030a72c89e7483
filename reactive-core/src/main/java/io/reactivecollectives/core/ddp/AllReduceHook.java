package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * DDP's default hook ({@code allreduce_hook}): multiplies the bucket by {@code 1 / worldSize} and
 * all-reduces it with SUM, in place, so every rank ends with the average gradient. A sparse bucket
 * (one row-sparse parameter) is sent sparse, as DDP's hook sends a sparse gradient: its rows,
 * scaled, go through {@link ProcessGroup#allReduceSparse} (every rank's rows gathered and summed),
 * so the traffic follows the rows the ranks touched, not the parameter's size, and the dense average
 * is made from the sum on each rank.
 *
 * <p>The scaling is {@link ReduceKernels#preprocess PREMUL_SUM's pre-multiply}, in place and in the
 * bucket's own precision: float64 for FLOAT64, float32 for FLOAT32, FLOAT16 and BFLOAT16 (rounded
 * back to nearest-even); nothing is allocated per step.
 */
public final class AllReduceHook implements CommHook {

    private final ProcessGroup group;

    /** PREMUL_SUM by {@code 1 / size} for the last world size seen (ReduceOp is immutable, so a race only remakes it). */
    private ReduceOp scale;

    /**
     * The hook for {@code group}.
     *
     * @param group the group the buckets are all-reduced over
     */
    public AllReduceHook(ProcessGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Mono<Tensor> runHook(GradBucket bucket) {
        return Mono.defer(() -> {
            if (bucket.isSparse()) {
                return Mono.using(() -> sparseOf(bucket), rows -> group.allReduceSparse(rows, ReduceOp.SUM),
                        SparseTensor::release).map(sum -> {
                            try {
                                return sum.toDense();
                            } finally {
                                sum.release();
                            }
                        });
            }
            Tensor buffer = bucket.buffer();
            divideByWorldSize(buffer);
            return group.allReduce(buffer, ReduceOp.SUM);
        });
    }

    /** The bucket's rows, scaled by {@code 1 / worldSize} in place, as a sparse tensor over the bucket's memory. */
    private SparseTensor sparseOf(GradBucket bucket) {
        divideByWorldSize(bucket.buffer());
        return bucket.sparseRows();
    }

    /** {@code t *= 1 / worldSize}, in place; nothing for a world of one. */
    private void divideByWorldSize(Tensor t) {
        int size = group.size();
        if (size == 1) {
            return;
        }
        ReduceOp op = scale;
        double factor = 1.0 / size;
        if (op == null || op.factor() != factor) {
            op = ReduceOp.premulSum(factor);
            scale = op;
        }
        ReduceKernels.preprocess(op, t);
    }

    @Override
    public boolean singleCollective() {
        return true;
    }

    @Override
    public String toString() {
        return "AllReduceHook";
    }
}
