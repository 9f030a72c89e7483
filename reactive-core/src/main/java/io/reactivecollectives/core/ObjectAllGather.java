package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ObjectCoding.Encoded;
import io.reactivecollectives.core.ObjectHeader.Fields;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * All-gather of objects: one round trip for objects that fit the first round (each rank's header
 * and first bytes, one {@code allGatherInto}); the rest of longer objects follow in rounds of
 * {@code allGatherInto}, each as long as what is left of the longest object (at most the round's
 * share), so a rank holds each object's bytes once and two rounds' buffers, never a padded copy
 * of every object. Every rank decodes every part, its own included, as c10d's
 * {@code all_gather_object} does.
 */
final class ObjectAllGather {

    private ObjectAllGather() {
    }

    static <T> Mono<List<T>> run(ObjectCall call, T value, Codec<T> codec) {
        return Mono.defer(() -> {
            Encoded mine = ObjectCoding.encode(codec, value, call.options.maxBytes());
            int first = (int) Math.min(mine.length(), call.firstData());
            Fields header = call.header(mine.status(), codec == null ? "" : codec.id(), mine.length(), mine.length(),
                    first, mine.detail());
            return call.firstRound(header, mine.blob(), r -> {
                long total = 0;
                long longest = 0;
                ObjectBlob[] parts = new ObjectBlob[call.size];
                for (int q = 0; q < call.size; q++) {
                    total += r.length(q);
                    longest = Math.max(longest, r.length(q));
                }
                call.requireWithin(r, total, "on every rank (the sum of every rank's object)");
                for (int q = 0; q < call.size; q++) {
                    parts[q] = q == call.rank ? mine.blob() : ObjectBlob.ofLength(r.length(q));
                    if (q != call.rank) {
                        r.copyFirst(q, parts[q]);
                    }
                }
                return new Rounds(call, parts, call.firstData(), longest, r.roundBytes(), total);
            }).flatMap(rounds -> rounds.run().then(ObjectCoding.onCpu(rounds.total, () -> ObjectCoding.decodeAll(call, codec, rounds.parts))));
        });
    }

    /** The rounds after the first: offsets and blocks that every rank computes alike. */
    private record Rounds(ObjectCall call, ObjectBlob[] parts, long start, long longest, int roundBytes, long total) {

        Mono<Void> run() {
            return call.rounds(start, longest, roundBytes, call.size, (offset, block) -> round(offset, block));
        }

        private Mono<Void> round(long offset, int block) {
            int n = call.size;
            return Mono.usingWhen(
                    Mono.fromCallable(() -> new Tensor[]{Tensor.empty(DType.UINT8, block), Tensor.empty(DType.UINT8, (long) n * block)}),
                    t -> {
                        fill(t[0].buffer(), parts[call.rank], offset, block);
                        return call.group.allGatherInto(t[1], t[0], call.options.collective()).doOnNext(out -> {
                            ByteBuf o = out.buffer();
                            for (int q = 0; q < n; q++) {
                                if (q != call.rank) {
                                    take(o, q * block, parts[q], offset, block);
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

    /** Writes {@code block} bytes of {@code part} from {@code offset} into {@code dst} from 0, zeros past its end. */
    static void fill(ByteBuf dst, ObjectBlob part, long offset, int block) {
        int n = (int) Math.max(0, Math.min(block, part.length() - offset));
        if (n > 0) {
            part.get(offset, n, (src, from, len, at) -> dst.setBytes(at, src, from, len));
        }
        dst.setZero(n, block - n);
    }

    /** Reads what of {@code part} lies in the block at {@code at} of {@code src} (the block holds its bytes from {@code offset}). */
    static void take(ByteBuf src, int at, ObjectBlob part, long offset, int block) {
        int n = (int) Math.max(0, Math.min(block, part.length() - offset));
        if (n > 0) {
            part.put(offset, n, (d, from, len, k) -> src.getBytes(at + k, d, from, len));
        }
    }
}
