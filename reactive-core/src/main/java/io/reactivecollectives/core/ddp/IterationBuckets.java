package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * One iteration of a {@link GradientReducer}: which parameters have been marked ready, how many
 * gradients each bucket still waits for, and which buckets are complete and next in index order
 * to launch. A dense gradient is copied into its bucket's buffer; a sparse one into a bucket of its
 * own, released when the iteration ends. Used from one thread at a time (the reducer's stream).
 */
final class IterationBuckets {

    /**
     * A parameter whose gradient is ready, with its sparse gradient if it was registered sparse;
     * {@code owned}: the iteration takes the sparse gradient's tensors as its bucket (no copy) and
     * releases them with the bucket; one it refuses is released by {@link #discard}.
     */
    record Ready(Parameter parameter, SparseGradient sparse, boolean owned) {
        Ready(Parameter parameter, SparseGradient sparse) {
            this(parameter, sparse, false);
        }
    }

    private final List<Parameter> parameters;
    private final BucketLayout layout;
    private final int[] pending;
    private final boolean[] seen;
    private final GradBucket[] buckets;
    private int nextToLaunch;

    IterationBuckets(List<Parameter> parameters, BucketLayout layout) {
        this.parameters = parameters;
        this.layout = layout;
        this.pending = new int[layout.assignment.size()];
        for (int k = 0; k < pending.length; k++) {
            pending[k] = layout.assignment.get(k).size();
        }
        this.seen = new boolean[parameters.size()];
        this.buckets = new GradBucket[pending.length];
    }

    /**
     * Takes {@code r}'s gradient into its bucket and returns the buckets now ready to launch, in
     * index order (often none).
     *
     * @throws IllegalArgumentException when the parameter is not registered or ready with the wrong kind of gradient
     * @throws IllegalStateException    when the parameter was already marked ready in this iteration
     */
    List<GradBucket> accept(Ready r) {
        Integer i = layout.indexOf.get(r.parameter());
        if (i == null) {
            throw new IllegalArgumentException("GradientReducer: parameter '" + r.parameter().name() + "' is not registered");
        }
        if (seen[i]) {
            throw new IllegalStateException("GradientReducer: parameter '" + r.parameter().name()
                    + "' marked ready twice in one iteration");
        }
        boolean sparse = layout.sparse[i];
        if (sparse != (r.sparse() != null)) {
            throw new IllegalArgumentException("GradientReducer: parameter '" + r.parameter().name()
                    + (sparse ? "' was registered sparse; mark it ready with its SparseGradient"
                    : "' is dense; it cannot be marked ready with a SparseGradient"));
        }
        seen[i] = true;
        int k = layout.bucketOf[i];
        if (sparse) {
            buckets[k] = sparseBucket(k, r.parameter(), r.sparse(), r.owned());
        } else {
            layout.denseBuckets[k].buffer().narrow(layout.offsetInBucket[i], r.parameter().numel())
                    .copyFrom(r.parameter().grad().flatten());
            buckets[k] = layout.denseBuckets[k];
        }
        pending[k]--;
        List<GradBucket> launch = new ArrayList<>(1);
        while (nextToLaunch < pending.length && pending[nextToLaunch] == 0) {
            launch.add(buckets[nextToLaunch++]);
        }
        return launch;
    }

    /**
     * Null when every bucket was launched, else the error naming the parameters never marked ready.
     *
     * @return the error, or null
     */
    IllegalStateException incomplete() {
        if (nextToLaunch >= pending.length) {
            return null;
        }
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < seen.length; i++) {
            if (!seen[i]) {
                missing.add(parameters.get(i).name());
            }
        }
        return new IllegalStateException("GradientReducer: iteration ended with "
                + (pending.length - nextToLaunch) + " bucket(s) not launched; gradients never marked ready: " + missing);
    }

    /**
     * Releases an owned sparse gradient that no bucket took: the reducer's stream discards it when
     * {@link #accept} refuses it (Reactor discards the element a mapper failed on) or when the stream
     * ends with it still queued.
     */
    static void discard(Ready r) {
        if (r.owned() && r.sparse() != null) {
            r.sparse().indices().release();
            r.sparse().values().release();
        }
    }

    /** Releases this iteration's sparse buckets (the dense ones are the reducer's). */
    void releaseSparse() {
        for (GradBucket b : buckets) {
            if (b != null && b.isSparse()) {
                b.buffer().release();
                b.sparseIndices(0).release();
            }
        }
    }

    /** {@code g} as bucket {@code k}: its own tensors when owned (the caller gave them up), else copies. */
    private GradBucket sparseBucket(int k, Parameter p, SparseGradient g, boolean owned) {
        if (owned) {   // refused, they are released by discard
            return GradBucket.sparse(k, buckets.length, p, g.values().flatten(), g.indices());
        }
        Tensor values = g.values().flatten().copy();
        Tensor indices = g.indices().copy();
        try {
            return GradBucket.sparse(k, buckets.length, p, values, indices);
        } catch (RuntimeException e) {
            values.release();
            indices.release();
            throw e;
        }
    }
}
