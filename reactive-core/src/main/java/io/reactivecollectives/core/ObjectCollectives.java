package io.reactivecollectives.core;

import reactor.core.publisher.Mono;

import java.util.function.Function;

/** Where {@link ProcessGroup}'s object collectives start: the checks every rank makes alike, the queue, the call. */
final class ObjectCollectives {

    private ObjectCollectives() {
    }

    /**
     * Runs {@code body} as object collective {@code op} of {@code group}, numbered and queued by
     * {@link ObjectCalls}. A root out of range, null options and a null codec are announced in the
     * first round (so every rank fails alike, not only the rank that passed them, whose peers would
     * otherwise wait for it until the timeout); a call with null options runs that round with the
     * defaults.
     */
    static <R> Mono<R> call(ProcessGroup group, ObjectOp op, int root, ObjectOptions options,
                            Function<ObjectCall, Mono<R>> body) {
        String bad = options == null ? "the options are null"
                : op.rooted() && (root < 0 || root >= group.size()) ? "root " + root + " is outside the group of " + group.size() + " ranks"
                : null;
        ObjectOptions o = options == null ? ObjectOptions.DEFAULT : options;
        return ObjectCalls.of(group).enqueue(seq -> body.apply(new ObjectCall(group, op, seq, root, o, bad, false))
                        .onErrorMap(e -> ObjectRoundErrors.named(op.displayName(), group.rank(), seq, e)),
                seq -> body.apply(new ObjectCall(group, op, seq, root, o, bad, true)));
    }
}
