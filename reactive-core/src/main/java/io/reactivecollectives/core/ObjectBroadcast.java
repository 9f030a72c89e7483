package io.reactivecollectives.core;

import io.reactivecollectives.core.ObjectCoding.Encoded;
import reactor.core.publisher.Mono;

/**
 * Broadcast of an object: the first round carries every rank's header and the root's first bytes
 * (so the ranks agree on op, root and codec, and a small object arrives, in one round trip); the
 * rest follows in rounds of {@code broadcast}, each at most the round size. The root emits its own
 * object, as c10d's {@code broadcast_object_list} leaves the source's list as it was; the others
 * emit what they decode. A null object completes empty on every rank.
 */
final class ObjectBroadcast {

    private ObjectBroadcast() {
    }

    static <T> Mono<T> run(ObjectCall call, T value, Codec<T> codec) {
        return Mono.defer(() -> {
            boolean isRoot = call.rank == call.root;
            Encoded mine = isRoot ? ObjectCoding.encode(codec, value, call.options.maxBytes()) : Encoded.nothing(codec);
            return ObjectFirstRound.run(call, call.header(codec, mine, mine.length(), true), mine.blob(), r -> {
                r.requireWithin(r.length(call.root), "on every rank (the root's object)");
                return new Part(isRoot ? mine.blob() : r.part(call.root), r.roundBytes());
            }).flatMap(p -> call.rounds(call.firstData(), p.blob().length(), p.roundBytes(), 1,
                            (offset, block) -> round(call, p.blob(), isRoot, offset, block))
                    .then(isRoot ? Mono.justOrEmpty(value)
                            : ObjectCoding.onCpu(p.blob().length(), () -> ObjectCoding.decode(call, codec, p.blob(), call.root))));
        });
    }

    /** The root's part (this rank's own on the root) and the agreed round size. */
    private record Part(ObjectBlob blob, int roundBytes) {
    }

    private static Mono<Void> round(ObjectCall call, ObjectBlob part, boolean isRoot, long offset, int block) {
        return Mono.usingWhen(Mono.fromCallable(() -> Tensor.empty(DType.UINT8, block)),
                t -> {
                    if (isRoot) {
                        part.copyTo(t.buffer(), 0, offset, block);
                    }
                    return call.group.broadcast(t, call.root, call.options.collective()).doOnNext(out -> {
                        if (!isRoot) {
                            part.copyFrom(out.buffer(), 0, offset, block);
                        }
                    });
                },
                t -> Mono.fromRunnable(t::release)).then();
    }
}
