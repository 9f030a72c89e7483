package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

/**
 * The communication of a {@link GradientReducer}'s buckets: runs the {@link CommHook} on a bucket,
 * times it ({@link CommTimer}: wall time with at least one hook running), checks the hook's result
 * and copies it into the gradients of the bucket's parameters.
 */
final class BucketCommunication {

    private final CommHook hook;
    private final CommTimer comm = new CommTimer();

    BucketCommunication(CommHook hook) {
        this.hook = hook;
    }

    /** Nanoseconds during which at least one hook was running. */
    long nanos() {
        return comm.nanos();
    }

    /**
     * Runs the hook on {@code bucket} and emits the bucket once the hook's result is in its
     * parameters' gradients (the result is released unless it is the bucket's own buffer).
     */
    Mono<GradBucket> run(GradBucket bucket) {
        return Mono.defer(() -> {
            comm.started();
            // the communication ends when the hook's signal arrives, before anything downstream runs
            return hook.runHook(bucket).doOnTerminate(comm::ended).doOnCancel(comm::ended);
        }).map(result -> {
            try {
                copyBack(bucket, result);
            } finally {
                if (result != bucket.buffer()) {
                    result.release();
                }
            }
            return bucket;
        });
    }

    /** Copies {@code result} (the bucket's dense elements, in order) into each parameter's gradient. */
    private void copyBack(GradBucket bucket, Tensor result) {
        long expected = bucket.denseNumel();
        if (result.numel() != expected || result.dtype() != bucket.buffer().dtype()) {
            throw new IllegalStateException("GradientReducer: hook " + hook + " returned " + result + " for bucket "
                    + bucket.index() + ", expected " + expected + " elements of " + bucket.buffer().dtype());
        }
        Tensor flat = result.dim() == 1 ? result : result.flatten();
        long off = 0;
        for (Parameter p : bucket.parameters()) {
            p.grad().flatten().copyFrom(flat.narrow(off, p.numel()));
            off += p.numel();
        }
    }
}
