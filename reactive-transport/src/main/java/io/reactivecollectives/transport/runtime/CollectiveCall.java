package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import io.reactivecollectives.transport.decision.Plan;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * One collective as the runner sees it: its type, per-call options, the argument check and the
 * algorithm's choice (run once on subscription, before anything is sent), its fingerprint for a
 * sequence number, and its body over a {@link CollectiveChannel}, which runs what was chosen.
 *
 * @param op       the collective's type (its display name names it in messages)
 * @param options  per-call options (timeout, forced algorithm)
 * @param decide   checks the arguments and chooses the algorithm (its collective's decision in
 *                 {@code transport.decision}); throws {@link IllegalArgumentException} for bad
 *                 arguments or a forced algorithm that does not implement the collective
 * @param describe the fingerprint (op, dtype, shapes, root, reduce op) for a sequence number
 * @param body     the collective's work, given what {@code decide} chose
 * @param tensors  the tensors it reads and writes (no other in-flight collective of the group may
 *                 use their memory)
 */
public record CollectiveCall<P extends Plan, T>(OpType op, CollectiveOptions options, Supplier<P> decide,
                                                LongFunction<CollectiveFingerprint> describe,
                                                BiFunction<CollectiveChannel, P, Mono<T>> body, List<Tensor> tensors) {

    public CollectiveCall(OpType op, CollectiveOptions options, Supplier<P> decide,
                          LongFunction<CollectiveFingerprint> describe, BiFunction<CollectiveChannel, P, Mono<T>> body) {
        this(op, options, decide, describe, body, List.of());
    }

    /** This call, using the memory of {@code ts} (tensors or lists of tensors; nulls skipped). */
    public CollectiveCall<P, T> using(Object... ts) {
        List<Tensor> all = new ArrayList<>();
        for (Object o : ts) {
            if (o instanceof Tensor t) {
                all.add(t);
            } else if (o instanceof List<?> l) {
                for (Object x : l) {
                    if (x instanceof Tensor t) {
                        all.add(t);
                    } else if (x instanceof List<?> inner) {
                        for (Object y : inner) {
                            if (y instanceof Tensor t) {
                                all.add(t);
                            }
                        }
                    }
                }
            }
        }
        return new CollectiveCall<>(op, options, decide, describe, body, all);
    }

    /** A call whose fingerprint is its op alone. */
    public static <P extends Plan, T> CollectiveCall<P, T> of(OpType op, CollectiveOptions options, Supplier<P> decide,
                                                              BiFunction<CollectiveChannel, P, Mono<T>> body) {
        return new CollectiveCall<>(op, options, decide,
                seq -> new CollectiveFingerprint(op, seq, null, List.of(), -1, null), body);
    }

    /** The name used in messages ({@code allReduce}). */
    public String name() {
        return op.displayName();
    }
}
