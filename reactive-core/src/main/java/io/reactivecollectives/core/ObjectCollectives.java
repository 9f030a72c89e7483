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
        return ObjectCalls.of(group).enqueue(seq -> {
            ObjectCall call = new ObjectCall(group, op, seq, root, options);
            if (op.rooted() && (root < 0 || root >= group.size())) {
                return Mono.error(call.error(CollectiveException.NO_PEER, "root " + root + " is outside the group of "
                        + group.size() + " ranks"));
            }
            return body.apply(call);
        });
    }
}
