package io.reactivecollectives.core;

import java.util.List;

/**
 * Many tensors of one dtype as one flat tensor and back, for collectives that move several small
 * tensors in one exchange (a coalesced all-reduce, a coalesced broadcast). Stateless.
 */
public final class Flattening {

    private Flattening() {
    }

    /**
     * A new tensor (the caller releases it) holding the elements of {@code tensors}, one after the other.
     *
     * @param tensors the tensors, all of one dtype
     * @return the flat tensor
     */
    public static Tensor flatten(List<Tensor> tensors) {
        long n = 0;
        for (Tensor t : tensors) {
            n += t.numel();
        }
        Tensor flat = Tensor.empty(tensors.get(0).dtype(), n);
        long off = 0;
        for (Tensor t : tensors) {
            flat.narrow(off, t.numel()).copyFrom(t.flatten());
            off += t.numel();
        }
        return flat;
    }

    /**
     * Copies {@code flat}'s elements back into {@code tensors}, in the order {@link #flatten} took them.
     *
     * @param flat    the flat tensor
     * @param tensors the tensors written, as passed to {@link #flatten}
     */
    public static void unflatten(Tensor flat, List<Tensor> tensors) {
        long off = 0;
        for (Tensor t : tensors) {
            t.flatten().copyFrom(flat.narrow(off, t.numel()));
            off += t.numel();
        }
    }
}
