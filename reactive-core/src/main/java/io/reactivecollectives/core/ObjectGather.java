package io.reactivecollectives.core;

import io.reactivecollectives.core.ObjectAllGather.Parts;
import io.reactivecollectives.core.ObjectCoding.Encoded;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * Gather of objects to a root: the first round carries every rank's header and first bytes (to
 * every rank, so all agree and small objects arrive in one round trip); the rest follows in rounds
 * of {@code gather}, each as long as what is left of the longest object. The root emits every
 * rank's object in rank order (its own decoded too, as c10d's {@code gather_object}); the others
 * emit an empty list (c10d gives them None).
 */
final class ObjectGather {

    private ObjectGather() {
    }

    static <T> Mono<List<T>> run(ObjectCall call, T value, Codec<T> codec) {
        return Mono.defer(() -> {
            boolean isRoot = call.rank == call.root;
            Encoded mine = ObjectCoding.encode(codec, value, call.options.maxBytes());
            return ObjectFirstRound.run(call, call.header(codec, mine, mine.length(), true), mine.blob(), r -> {
                r.requireWithin(r.total(), "on the root (the sum of every rank's object)");
                return new Parts(r.parts(mine.blob(), isRoot), r.longest(), r.roundBytes(), r.total());
            }).flatMap(p -> call.rounds(call.firstData(), p.longest(), p.roundBytes(), call.size,
                            (offset, block) -> round(call, p.blobs(), isRoot, offset, block))
                    .then(isRoot ? ObjectCoding.onCpu(p.total(), () -> ObjectCoding.decodeAll(call, codec, p.blobs()))
                            : Mono.just(List.<T>of())));
        });
    }

    private static Mono<Void> round(ObjectCall call, ObjectBlob[] parts, boolean isRoot, long offset, int block) {
        return call.withBlocks(block, ts -> {
            parts[call.rank].copyTo(ts.get(0).buffer(), 0, offset, block);
            return call.group.gather(ts.subList(1, ts.size()), ts.get(0), call.root, call.options.collective()).doOnNext(got -> {
                for (int q = 0; isRoot && q < call.size; q++) {
                    if (q != call.rank) {
                        parts[q].copyFrom(got.get(q).buffer(), 0, offset, block);
                    }
                }
            });
        });
    }
}
