package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * How a bucket of gradients is communicated, as c10d's communication hooks
 * ({@code register_comm_hook}).
 *
 * <p>{@link #runHook(GradBucket)} returns a cold {@code Mono} that, when subscribed, reduces the
 * bucket across ranks and emits one flat tensor of the bucket's dense size (for a dense bucket,
 * {@code bucket.buffer().numel()}); the reducer copies each parameter's slice of it into that
 * parameter's gradient. The result may be the bucket's own buffer (reduced in place); any other
 * tensor is released by the reducer once copied. An error signal fails the reduction.
 *
 * <p>Every rank must run the same collectives in the same order for a given bucket; the reducer
 * runs hooks for buckets in index order.
 */
@FunctionalInterface
public interface CommHook {

    /**
     * Reduces {@code bucket} across ranks; emits the reduced flat gradients.
     *
     * @param bucket the bucket, whose buffer the hook may overwrite
     * @return a cold {@code Mono} emitting the reduced flat gradients
     */
    Mono<Tensor> runHook(GradBucket bucket);

    /**
     * Whether each run issues exactly one collective when subscribed (so runs for several buckets may
     * be in flight together without two ranks interleaving their collectives differently).
     * Hooks that issue collectives from completion callbacks return {@code false} and the reducer
     * runs them one bucket at a time.
     *
     * @return whether each run issues exactly one collective
     */
    default boolean singleCollective() {
        return false;
    }
}
