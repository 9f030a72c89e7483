package io.reactivecollectives.core;

import io.reactivecollectives.core.ObjectCoding.Encoded;
import io.reactivecollectives.core.ObjectHeader.Fields;
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
            int first = (int) Math.min(mine.length(), call.firstData());
            Fields header = call.header(mine.status(), codec == null ? "" : codec.id(), mine.length(), mine.length(),
                    first, mine.detail());
            long[] shape = new long[3];   // total, longest, round bytes
            return call.firstRound(header, mine.blob(), r -> {
                ObjectBlob[] parts = new ObjectBlob[call.size];
                for (int q = 0; q < call.size; q++) {
                    shape[0] += r.length(q);
                    shape[1] = Math.max(shape[1], r.length(q));
                }
                shape[2] = r.roundBytes();
                call.requireWithin(r, shape[0], "on the root (the sum of every rank's object)");
                for (int q = 0; q < call.size; q++) {
                    parts[q] = q == call.rank ? mine.blob() : isRoot ? ObjectBlob.ofLength(r.length(q)) : null;
                    if (isRoot && q != call.rank) {
                        r.copyFirst(q, parts[q]);
                    }
                }
                return parts;
            }).flatMap(parts -> rounds(call, parts, isRoot, shape[1], (int) shape[2])
                    .then(isRoot ? ObjectCoding.onCpu(shape[0], () -> ObjectCoding.decodeAll(call, codec, parts))
                            : Mono.just(List.<T>of())));
        });
    }

    private static Mono<Void> rounds(ObjectCall call, ObjectBlob[] parts, boolean isRoot, long longest, int roundBytes) {
        return call.rounds((long) call.firstData(), longest, roundBytes, call.size, (offset, block) -> round(call, parts, isRoot, offset, block));
    }

    private static Mono<Void> round(ObjectCall call, ObjectBlob[] parts, boolean isRoot, long offset, int block) {
        int n = call.size;
        return call.withBlocks(block, ts -> {
            ObjectAllGather.fill(ts.get(0).buffer(), parts[call.rank], offset, block);
            List<Tensor> outs = ts.subList(1, ts.size());
            return call.group.gather(outs, ts.get(0), call.root, call.options.collective()).doOnNext(got -> {
                for (int q = 0; isRoot && q < n; q++) {
                    if (q != call.rank) {
                        ObjectAllGather.take(got.get(q).buffer(), 0, parts[q], offset, block);
                    }
                }
            });
        });
    }
}
