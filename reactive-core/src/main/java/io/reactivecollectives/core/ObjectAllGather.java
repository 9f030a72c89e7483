package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ObjectCoding.Encoded;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * All-gather of objects: one round trip for objects that fit the first round (each rank's header
 * and first bytes, one {@code allGatherInto}); the rest of longer objects follow in rounds of
 * {@code allGatherInto}, each as long as what is left of the longest object (at most the round's
 * share), so a rank holds each object's bytes once and one round's buffers, never a padded copy
 * of every object. Every rank decodes every part, its own included, as c10d's
 * {@code all_gather_object} does.
 */
final class ObjectAllGather {

    private ObjectAllGather() {
    }

    static <T> Mono<List<T>> run(ObjectCall call, T value, Codec<T> codec) {
        return Mono.defer(() -> {
            Encoded mine = ObjectCoding.encode(codec, value, call.options.maxBytes());
            return ObjectFirstRound.run(call, call.header(codec, mine, mine.length(), true), mine.blob(), r -> {
                r.requireWithin(r.total(), "on every rank (the sum of every rank's object)");
                return new Parts(r.parts(mine.blob(), true), r.longest(), r.roundBytes(), r.total());
            }).flatMap(p -> call.rounds(call.firstData(), p.longest(), p.roundBytes(), call.size,
                            (offset, block) -> round(call, p.blobs(), offset, block))
                    .then(ObjectCoding.onCpu(p.total(), () -> ObjectCoding.decodeAll(call, codec, p.blobs()))));
        });
    }

    /** What the first round settled: every rank's part (null where this rank receives none), the longest, the round size, the sum. */
    record Parts(ObjectBlob[] blobs, long longest, int roundBytes, long total) {
    }

    private static Mono<Void> round(ObjectCall call, ObjectBlob[] parts, long offset, int block) {
        int n = call.size;
        return Mono.usingWhen(
                Mono.fromCallable(() -> new Tensor[]{Tensor.empty(DType.UINT8, block), Tensor.empty(DType.UINT8, (long) n * block)}),
                t -> {
                    parts[call.rank].copyTo(t[0].buffer(), 0, offset, block);
                    return call.group.allGatherInto(t[1], t[0], call.options.collective()).doOnNext(out -> {
                        ByteBuf o = out.buffer();
                        for (int q = 0; q < n; q++) {
                            if (q != call.rank) {
                                parts[q].copyFrom(o, q * block, offset, block);
                            }
                        }
                    });
                },
                t -> Mono.fromRunnable(() -> {
                    t[0].release();
                    t[1].release();
                })).then();
    }
}
