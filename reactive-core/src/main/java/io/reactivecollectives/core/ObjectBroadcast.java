package io.reactivecollectives.core;

import io.reactivecollectives.core.ObjectCoding.Encoded;
import io.reactivecollectives.core.ObjectHeader.Fields;
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
            Encoded mine = isRoot ? ObjectCoding.encode(codec, value, call.options.maxBytes())
                    : Encoded.nothing(codec);
            int first = (int) Math.min(mine.length(), call.firstData());
            Fields header = call.header(mine.status(), codec == null ? "" : codec.id(), mine.length(), mine.length(),
                    first, mine.detail());
            return call.firstRound(header, mine.blob(), r -> {
                long length = r.length(call.root);
                call.requireWithin(r, length, "on every rank (the root's object)");
                ObjectBlob part = isRoot ? mine.blob() : ObjectBlob.ofLength(length);
                if (!isRoot) {
                    r.copyFirst(call.root, part);
                }
                return new Object[]{part, r.roundBytes()};
            }).flatMap(s -> {
                ObjectBlob part = (ObjectBlob) s[0];
                return rounds(call, part, isRoot, (Integer) s[1]).then(isRoot ? Mono.justOrEmpty(value)
                        : ObjectCoding.onCpu(part.length(), () -> ObjectCoding.decode(call, codec, part, call.root)));
            });
        });
    }

    private static Mono<Void> rounds(ObjectCall call, ObjectBlob part, boolean isRoot, int roundBytes) {
        long length = part.length();
        return call.rounds((long) call.firstData(), length, roundBytes, 1, (offset, block) -> round(call, part, isRoot, offset, block));
    }

    private static Mono<Void> round(ObjectCall call, ObjectBlob part, boolean isRoot, long offset, int block) {
        return Mono.usingWhen(Mono.fromCallable(() -> Tensor.empty(DType.UINT8, block)),
                t -> {
                    if (isRoot) {
                        ObjectAllGather.fill(t.buffer(), part, offset, block);
                    }
                    return call.group.broadcast(t, call.root, call.options.collective()).doOnNext(out -> {
                        if (!isRoot) {
                            ObjectAllGather.take(out.buffer(), 0, part, offset, block);
                        }
                    });
                },
                t -> Mono.fromRunnable(t::release)).then();
    }
}
