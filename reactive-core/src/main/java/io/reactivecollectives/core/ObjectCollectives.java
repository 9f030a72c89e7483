package io.reactivecollectives.core;

import reactor.core.publisher.Mono;

import java.util.function.Function;

/** Where {@link ProcessGroup}'s object collectives start: the checks every rank makes alike, the queue, the call. */
final class ObjectCollectives {

    private ObjectCollectives() {
    }

    /**
     * Runs {@code body} as object collective {@code op} of {@code group}, numbered and queued by
     * {@link ObjectCalls}. A root out of range is announced in the first round (so every rank
     * fails alike, not only the rank that passed it), as is a null codec; null options fail here.
     */
    static <R> Mono<R> call(ProcessGroup group, ObjectOp op, int root, ObjectOptions options,
                            Function<ObjectCall, Mono<R>> body) {
        if (options == null) {
            return Mono.error(new IllegalArgumentException(op.displayName() + ": options is null"));
        }
        // a root out of range is not failed here: the rank would leave the first round, and its
        // peers would wait for it until the timeout (ObjectCall.header announces it instead)
        return ObjectCalls.of(group).enqueue(seq -> body.apply(new ObjectCall(group, op, seq, root, options)));
    }
}
