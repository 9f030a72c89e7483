package io.reactivecollectives.djl;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/** Every rank's parameter digest, all-gathered, and the ranks whose digest is not rank 0's. */
final class ParameterDigests {

    private ParameterDigests() {
    }

    /** Every rank's {@code digest}, in rank order. */
    static Mono<List<Long>> allGather(ProcessGroup group, long digest) {
        return Mono.using(() -> new Buffers(group.size(), digest),
                b -> group.allGather(b.outputs, b.input).map(outs -> {
                    List<Long> all = new ArrayList<>(outs.size());
                    outs.forEach(t -> all.add(t.toLongArray()[0]));
                    return all;
                }),
                Buffers::release);
    }

    /** The ranks whose digest differs from rank 0's (empty when all agree). */
    static List<Integer> differing(List<Long> digests) {
        List<Integer> out = new ArrayList<>();
        for (int r = 1; r < digests.size(); r++) {
            if (!digests.get(r).equals(digests.get(0))) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * Completes when every digest equals rank 0's; else fails naming the ranks that differ, for
     * {@code where} (the operation and the rank).
     */
    static Mono<Void> requireIdentical(List<Long> digests, String where) {
        List<Integer> differ = differing(digests);
        return differ.isEmpty() ? Mono.empty() : Mono.error(new IllegalStateException(where + ": after the broadcast from rank 0"
                + " the parameters of rank(s) " + differ + " differ from rank 0's (digests " + digests + "); do all ranks build the same model, with an optimizer of the same class?"));
    }

    private static final class Buffers {
        final Tensor input;
        final List<Tensor> outputs = new ArrayList<>();

        Buffers(int world, long digest) {
            input = Tensor.fromLongs(new long[] {digest});
            for (int r = 0; r < world; r++) {
                outputs.add(Tensor.zeros(DType.INT64, 1));
            }
        }

        void release() {
            input.release();
            outputs.forEach(Tensor::release);
        }
    }

    /** Every rank's digest of {@code views} (made on {@code compute}), all-gathered over {@code group}. */
    static Mono<List<Long>> all(ProcessGroup group, ParameterViews views, reactor.core.scheduler.Scheduler compute) {
        return Mono.fromCallable(views::digest).subscribeOn(compute).flatMap(d -> allGather(group, d));
    }

    /**
     * Fails on every rank, naming the ranks that differ, unless every rank's parameters are identical
     * and every rank's optimizer is of the same class (ranks applying one averaged gradient by
     * different rules drift apart).
     */
    static Mono<Void> check(ProcessGroup group, ParameterViews views, ai.djl.training.optimizer.Optimizer optimizer,
                            reactor.core.scheduler.Scheduler compute, String operation) {
        long rule = optimizer.getClass().getName().hashCode();
        return Mono.fromCallable(() -> views.digest() * 31 + rule).subscribeOn(compute).flatMap(d -> allGather(group, d))
                .flatMap(digests -> requireIdentical(digests, operation + " on rank " + group.rank() + " of " + group.size()));
    }
}
