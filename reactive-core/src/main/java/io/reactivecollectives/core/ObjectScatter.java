package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ObjectCoding.Encoded;
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
            Encoded mine = isRoot ? encodeAll(call, values, codec, pieces) : Encoded.nothing(codec);
            long largest = 0;
            for (ObjectBlob p : pieces) {
                largest = p == null ? largest : Math.max(largest, p.length());
            }
            return ObjectFirstRound.run(call, call.header(codec, mine, largest, false), null, r -> {
                long big = r.headers()[call.root].largest();
                r.requireWithin(big, "on a rank (the root's largest piece)");
                return new Receiving(big, r.roundBytes());
            }).flatMap(in -> call.rounds(0, Math.max(1, in.largest), in.roundBytes, call.size,
                            (offset, block) -> round(call, pieces, in, isRoot, offset, block))
                    .then(Mono.defer(() -> ObjectCoding.onCpu(in.piece.length(),
                            () -> ObjectCoding.decode(call, codec, in.piece, call.root)))));
        });
    }

    /** This rank's piece as it arrives: its length is learnt from the first scatter round's prefix. */
    private static final class Receiving {
        final long largest;
        final int roundBytes;
        ObjectBlob piece;

        Receiving(long largest, int roundBytes) {
            this.largest = largest;
            this.roundBytes = roundBytes;
        }
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

    private static Mono<Void> round(ObjectCall call, ObjectBlob[] pieces, Receiving in, boolean isRoot,
                                    long offset, int block) {
        return call.withBlocks(PREFIX + block, ts -> {
            for (int q = 0; isRoot && q < call.size; q++) {
                ByteBuf buf = ts.get(q + 1).buffer();
                buf.setLong(0, pieces[q].length());
                pieces[q].copyTo(buf, PREFIX, offset, block);
            }
            return call.group.scatter(ts.get(0), ts.subList(1, ts.size()), call.root, call.options.collective())
                    .doOnNext(out -> {
                        if (in.piece == null) {
                            long length = out.buffer().getLong(0);
                            if (length < 0 || length > in.largest) {
                                throw call.error(call.root, "the root sent a piece of " + length
                                        + " bytes, its largest being " + in.largest);
                            }
                            in.piece = ObjectBlob.ofLength(length);
                        }
                        in.piece.copyFrom(out.buffer(), PREFIX, offset, block);
                    });
        });
    }
}
