package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.Objects;

/**
 * DDP's default hook ({@code allreduce_hook}): divides the bucket by the world size and all-reduces
 * it with SUM, in place, so every rank ends with the average gradient. A sparse bucket is made dense
 * first.
 */
public final class AllReduceHook implements CommHook {

    private final ProcessGroup group;

    public AllReduceHook(ProcessGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Mono<Tensor> runHook(GradBucket bucket) {
        return Mono.defer(() -> {
            if (bucket.isSparse()) {
                Tensor dense = bucket.toDense();
                FloatOps.scale(dense, 1.0 / group.size());
                return group.allReduce(dense, ReduceOp.SUM)
                        .doOnError(e -> dense.release())
                        .doOnCancel(dense::release);
            }
            Tensor buffer = bucket.buffer();
            FloatOps.scale(buffer, 1.0 / group.size());
            return group.allReduce(buffer, ReduceOp.SUM);
        });
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
