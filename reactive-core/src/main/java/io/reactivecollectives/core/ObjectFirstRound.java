package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ObjectHeader.Fields;
import io.reactivecollectives.core.ObjectHeader.Status;
import reactor.core.publisher.Mono;

import java.util.function.Function;

/**
 * The first round of every object collective: one {@code allGatherInto} of every rank's
 * {@link ObjectHeader} and its first bytes, then the check that the ranks agree (against rank 0's
 * header, so every rank names the same difference) and that none failed (the lowest failing rank
 * is named), and a view of what every rank announced.
 */
final class ObjectFirstRound {

    private ObjectFirstRound() {
    }

    /**
     * Runs the round: {@code mine} and {@code mine.firstBytes()} bytes of {@code data} from offset
     * 0 (data may be null when it sends none); {@code then} sees the checked headers and reads the
     * first bytes while the round's buffer is alive.
     */
    static <R> Mono<R> run(ObjectCall call, Fields mine, ObjectBlob data, Function<View, R> then) {
        int block = call.firstBlock();
        return Mono.usingWhen(
                Mono.fromCallable(() -> new Tensor[]{Tensor.zeros(DType.UINT8, block), Tensor.empty(DType.UINT8, (long) call.size * block)}),
                t -> {
                    ByteBuf in = t[0].buffer();
                    ObjectHeader.write(in, 0, mine);
                    if (data != null) {
                        data.copyTo(in, ObjectHeader.BYTES, 0, mine.firstBytes());
                    }
                    return call.group.allGatherInto(t[1], t[0], call.options.collective())
                            .map(out -> then.apply(agree(call, out.buffer(), block)));
                },
                t -> Mono.fromRunnable(() -> {
                    t[0].release();
                    t[1].release();
                }));
    }

    private static View agree(ObjectCall call, ByteBuf out, int block) {
        Fields[] all = new Fields[call.size];
        for (int q = 0; q < call.size; q++) {
            all[q] = ObjectHeader.read(out, q * block);
            if (all[q] == null) {
                throw call.error(q, "rank " + q + " sent no " + call.name() + " header: it is running another collective"
                        + " or another version of this library");
            }
        }
        for (int q = 1; q < call.size; q++) {
            String diff = difference(all[0], all[q]);
            if (diff != null) {
                throw new CollectiveMismatchException(call.name(), call.rank, call.sequence, q, "object collective mismatch: rank 0 called "
                        + describe(all[0]) + " but rank " + q + " called " + describe(all[q]) + ": " + diff);
            }
        }
        long limit = Long.MAX_VALUE;
        int roundBytes = Integer.MAX_VALUE;
        for (int q = 0; q < call.size; q++) {
            Fields f = all[q];
            if (f.status() != Status.OK) {
                throw call.error(q, "rank " + q + " " + switch (f.status()) {
                    // a keyed all-reduce's owner encodes what its combine function made: its failure shows here too
                    case ENCODE_FAILED -> call.op == ObjectOp.KEYED_ALL_REDUCE ? "could not encode or combine its entries"
                            : "could not encode its object";
                    case OVER_LIMIT -> "has more than its limit of " + f.limit() + " bytes to send";
                    case CANCELLED -> "cancelled its call";
                    default -> "was called with a wrong argument";
                } + ": " + f.detail() + " (it sent only its header in this round)");
            }
            if (f.length() < 0 || f.largest() < 0 || f.firstBytes() < 0 || f.firstBytes() > block - ObjectHeader.BYTES
                    || f.firstBytes() > f.length()) {
                throw call.error(q, "rank " + q + " sent a malformed header: length " + f.length() + ", first bytes " + f.firstBytes());
            }
            limit = Math.min(limit, f.limit());
            roundBytes = Math.min(roundBytes, Math.max(ObjectCall.MIN_BLOCK, f.roundBytes()));
        }
        return new View(call, all, out, block, limit, roundBytes);
    }

    private static String difference(Fields a, Fields b) {
        if (a.op() != b.op()) {
            return "ops " + a.op().displayName() + " vs " + b.op().displayName();
        }
        if (a.worldSize() != b.worldSize()) {
            return "world sizes " + a.worldSize() + " vs " + b.worldSize();
        }
        if (a.op().rooted() && a.root() != b.root()) {
            return "roots " + a.root() + " vs " + b.root();
        }
        if (a.sequence() != b.sequence()) {
            return "object-call sequence numbers " + a.sequence() + " vs " + b.sequence();
        }
        if (a.codecHash() != b.codecHash() && a.status() != Status.BAD_ARGUMENT && b.status() != Status.BAD_ARGUMENT) {
            // a rank called with a wrong argument (a null codec, a codec whose id() fails) has no id: its status names it
            return "codecs '" + a.codecId() + "' vs '" + b.codecId() + "'" + (a.codecId().equals(b.codecId())
                    ? " (the ids differ after the first bytes shown here)" : "");
        }
        return null;
    }

    private static String describe(Fields f) {
        return f.op().displayName() + "(seq=" + f.sequence() + (f.op().rooted() ? ", root=" + f.root() : "")
                + ", codec '" + f.codecId() + "')";
    }

    /** The first round as every rank sees it: headers, the agreed limit and round size, and the first bytes. */
    record View(ObjectCall call, Fields[] headers, ByteBuf out, int block, long limit, int roundBytes) {

        long length(int q) {
            return headers[q].length();
        }

        /** The sum of every rank's length. */
        long total() {
            long t = 0;
            for (Fields f : headers) {
                t += f.length();
            }
            return t;
        }

        /** The longest rank's length. */
        long longest() {
            long m = 0;
            for (Fields f : headers) {
                m = Math.max(m, f.length());
            }
            return m;
        }

        /** A new blob of rank {@code q}'s length holding its first bytes. */
        ObjectBlob part(int q) {
            ObjectBlob b = ObjectBlob.ofLength(length(q));
            b.copyFrom(out, q * block + ObjectHeader.BYTES, 0, headers[q].firstBytes());
            return b;
        }

        /** Every rank's part: {@code mine} for this rank, {@link #part} of the others where {@code receive}, else null. */
        ObjectBlob[] parts(ObjectBlob mine, boolean receive) {
            ObjectBlob[] parts = new ObjectBlob[call.size];
            for (int q = 0; q < call.size; q++) {
                parts[q] = q == call.rank ? mine : receive ? part(q) : null;
            }
            return parts;
        }

        /** Fails every rank alike when {@code bytes} (what each rank would hold) is over the call's limit. */
        void requireWithin(long bytes, String what) {
            if (bytes > limit) {
                throw call.error(CollectiveException.NO_PEER, call.name() + " needs " + bytes + " bytes " + what
                        + ", over the limit of " + limit + " (ObjectOptions.maxBytes, the smallest any rank set);"
                        + " nothing but the first round was sent");
            }
        }
    }
}
