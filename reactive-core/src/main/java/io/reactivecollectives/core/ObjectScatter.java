package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ObjectCoding.Encoded;
import io.reactivecollectives.core.ObjectHeader.Fields;
import io.reactivecollectives.core.ObjectHeader.Status;
import reactor.core.publisher.Mono;

import java.util.List;

/**
 * Scatter of objects from a root: the first round carries every rank's header (the root's with the
 * sum and the largest of its encoded pieces), then rounds of {@code scatter}, each block starting
 * with the piece's length ({@value #PREFIX} bytes) and as long as what is left of the largest piece.
 * A scatter takes two round trips at least: the ranks agree on the call before the root sends
 * anything of its pieces. Every rank, the root too, emits its decoded piece (c10d's
 * {@code scatter_object_list} unpickles on the source too); a null piece completes empty.
 */
final class ObjectScatter {

    static final int PREFIX = 8;

    private ObjectScatter() {
    }

    static <T> Mono<T> run(ObjectCall call, List<T> values, Codec<T> codec) {
        return Mono.defer(() -> {
            boolean isRoot = call.rank == call.root;
            ObjectBlob[] pieces = new ObjectBlob[call.size];
            Encoded mine = isRoot ? encodeAll(call, values, codec, pieces)
                    : Encoded.nothing(codec);
            long largest = 0;
            for (ObjectBlob p : pieces) {
                largest = p == null ? largest : Math.max(largest, p.length());
            }
            Fields header = call.header(mine.status(), codec == null ? "" : codec.id(), mine.length(), largest, 0, mine.detail());
            return call.firstRound(header, null, r -> {
                long big = r.headers()[call.root].largest();
                call.requireWithin(r, big, "on a rank (the root's largest piece)");
                return new long[]{big, r.roundBytes()};
            }).flatMap(plan -> {
                ObjectBlob[] got = new ObjectBlob[1];
                return call.rounds(0, Math.max(1, plan[0]), (int) plan[1], call.size,
                                (offset, block) -> round(call, pieces, got, isRoot, plan[0], offset, block))
                        .then(Mono.defer(() -> ObjectCoding.onCpu(got[0].length(),
                                () -> ObjectCoding.decode(call, codec, got[0], call.root))));
            });
        });
    }

    /** The root's pieces, or the status that says why there are none (nothing is sent of them then). */
    private static <T> Encoded encodeAll(ObjectCall call, List<T> values, Codec<T> codec, ObjectBlob[] pieces) {
        if (values == null || values.size() != call.size) {
            return Encoded.failed(Status.BAD_ARGUMENT, "the root's list holds " + (values == null ? "nothing (null)"
                    : values.size() + " objects") + " for a world of " + call.size);
        }
        long budget = call.options.maxBytes();
        long sum = 0;
        for (int q = 0; q < call.size; q++) {
            Encoded e = ObjectCoding.encode(codec, values.get(q), budget - sum);
            if (e.status() != Status.OK) {
                return Encoded.failed(e.status(), "object " + q + ": " + e.detail());
            }
            pieces[q] = e.blob();
            sum += e.length();
        }
        return new Encoded(null, sum, Status.OK, "");
    }

    private static Mono<Void> round(ObjectCall call, ObjectBlob[] pieces, ObjectBlob[] got, boolean isRoot,
                                    long largest, long offset, int block) {
        int n = call.size;
        int b = PREFIX + block;
        return call.withBlocks(b, ts -> {
            for (int q = 0; isRoot && q < n; q++) {
                ByteBuf in = ts.get(q + 1).buffer();
                in.setLong(0, pieces[q].length());
                ObjectAllGather.fill(in.slice(PREFIX, block), pieces[q], offset, block);
            }
            return call.group.scatter(ts.get(0), ts.subList(1, ts.size()), call.root, call.options.collective())
                    .doOnNext(out -> {
                        long length = out.buffer().getLong(0);
                        if (got[0] == null) {
                            if (length < 0 || length > largest) {
                                throw call.error(call.root, "the root sent a piece of " + length
                                        + " bytes, its largest being " + largest);
                            }
                            got[0] = ObjectBlob.ofLength(length);
                        }
                        ObjectAllGather.take(out.buffer(), PREFIX, got[0], offset, block);
                    });
        });
    }
}
