package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.ObjectHeader.Fields;
import io.reactivecollectives.core.ObjectHeader.Status;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One object collective on one rank: the group, the op, its object-call sequence number, the
 * root and options; the first round (every rank's {@link ObjectHeader} and its first bytes, by one
 * {@code allGatherInto}), the check that the ranks agree, and the errors, each naming the op, the
 * rank, the sequence number and the peer to blame.
 */
final class ObjectCall {

    /** The smallest per-rank block of a later round: 64 KiB. */
    static final int MIN_BLOCK = 64 << 10;
    /** The first round moves about this much to each rank in all, at least {@code HEADER + 256} per rank. */
    static final int FIRST_ROUND_BYTES = 64 << 10;

    final ProcessGroup group;
    final ObjectOp op;
    final long sequence;
    final int root;
    final int rank;
    final int size;
    final ObjectOptions options;
    /** A wrong argument this rank announces in its header instead of its status, or null. */
    private final String badArgument;

    ObjectCall(ProcessGroup group, ObjectOp op, long sequence, int root, ObjectOptions options, String badArgument) {
        this.group = group;
        this.op = op;
        this.sequence = sequence;
        this.root = root;
        this.rank = group.rank();
        this.size = group.size();
        this.options = options;
        this.badArgument = badArgument;
    }

    String name() {
        return op.displayName();
    }

    CollectiveException error(int peer, String detail) {
        return new CollectiveException(name(), rank, sequence, peer, detail, null);
    }

    CollectiveException error(int peer, String detail, Throwable cause) {
        return new CollectiveException(name(), rank, sequence, peer, detail, cause);
    }

    /** Bytes per rank in the first round: the header, then the first data. */
    int firstBlock() {
        int share = (FIRST_ROUND_BYTES / size + 7) & ~7;
        return Math.max(ObjectHeader.BYTES + 256, share);
    }

    /** Data bytes per rank in the first round. */
    int firstData() {
        return firstBlock() - ObjectHeader.BYTES;
    }

    /** The per-rank block of a later round: what is left of the longest part, at most the round's share. */
    static int block(long remaining, int roundBytes, int ranks) {
        return (int) Math.min(remaining, Math.max(MIN_BLOCK, roundBytes / ranks));
    }

    /**
     * The rounds after the first, for parts of up to {@code longest} bytes of which the first
     * {@code start} have travelled: {@code body} moves the bytes at {@code offset}, {@code block}
     * per rank, and every rank computes the same offsets and blocks.
     */
    Mono<Void> rounds(long start, long longest, int roundBytes, int ranks, Round body) {
        return Flux.<long[], Long>generate(() -> start, (offset, sink) -> {
            if (offset >= longest) {
                sink.complete();
                return offset;
            }
            int block = block(longest - offset, roundBytes, ranks);
            sink.next(new long[]{offset, block});
            return offset + block;
        }).concatMap(ob -> body.move(ob[0], (int) ob[1]), 0).then();
    }

    /**
     * Runs {@code body} over one round's buffers, released however the round ends: this rank's
     * block first, then, on the root of a gather or scatter, one block per rank.
     */
    Mono<Void> withBlocks(int block, Function<List<Tensor>, Mono<?>> body) {
        boolean isRoot = rank == root;
        return Mono.usingWhen(
                Mono.fromCallable(() -> {
                    List<Tensor> ts = new ArrayList<>(size + 1);
                    ts.add(Tensor.empty(DType.UINT8, block));
                    for (int q = 0; isRoot && q < size; q++) {
                        ts.add(Tensor.empty(DType.UINT8, block));
                    }
                    return ts;
                }),
                body,
                ts -> Mono.fromRunnable(() -> ts.forEach(Tensor::release))).then();
    }

    /** One round of {@link #rounds}. */
    @FunctionalInterface
    interface Round {
        Mono<Void> move(long offset, int block);
    }

    /**
     * This rank's header. A wrong argument (a root outside the group, null options) overrides the status: the rank still takes part
     * in the first round and announces it there ({@link Status#BAD_ARGUMENT}), so that every rank
     * fails alike (its peers, given another root, see a mismatch) instead of waiting for it.
     */
    Fields header(Status status, String codecId, long length, long largest, int firstBytes, String detail) {
        if (badArgument != null) {
            status = Status.BAD_ARGUMENT;
            detail = badArgument;
        }
        return Fields.of(op, status, root, size, sequence, codecId, length, largest, options.maxBytes(),
                options.roundBytes(), firstBytes, detail);
    }

    /**
     * The first round: every rank's header and {@code mine.firstBytes()} bytes of {@code data} from
     * offset 0 (data may be null when it sends none); {@code then} sees every header (checked: the
     * ranks agree, none failed) and a reader of each rank's first bytes, while the round's buffer
     * is alive.
     */
    <R> Mono<R> firstRound(Fields mine, ObjectBlob data, Function<FirstRound, R> then) {
        int block = firstBlock();
        return Mono.usingWhen(
                Mono.fromCallable(() -> new Tensor[]{Tensor.zeros(DType.UINT8, block), Tensor.empty(DType.UINT8, (long) size * block)}),
                t -> {
                    ByteBuf in = t[0].buffer();
                    ObjectHeader.write(in, 0, mine);
                    if (data != null && mine.firstBytes() > 0) {
                        data.get(0, mine.firstBytes(), (src, from, n, at) -> in.setBytes(ObjectHeader.BYTES + at, src, from, n));
                    }
                    return group.allGatherInto(t[1], t[0], options.collective()).map(out -> {
                        Fields[] all = new Fields[size];
                        for (int q = 0; q < size; q++) {
                            all[q] = ObjectHeader.read(out.buffer(), q * block);
                            if (all[q] == null) {
                                throw error(q, "rank " + q + " sent no " + name() + " header: it is running another collective"
                                        + " or another version of this library");
                            }
                        }
                        FirstRound first = agree(all, out.buffer(), block);
                        return then.apply(first);
                    });
                },
                t -> Mono.fromRunnable(() -> {
                    t[0].release();
                    t[1].release();
                }));
    }

    /**
     * Checks the headers against rank 0's (so every rank names the same difference), then the
     * ranks' statuses (the lowest failing rank is named), and gives the first round's view.
     */
    private FirstRound agree(Fields[] all, ByteBuf out, int block) {
        Fields first = all[0];
        for (int q = 1; q < size; q++) {
            String diff = difference(first, all[q]);
            if (diff != null) {
                throw new CollectiveMismatchException(name(), rank, sequence, q, "object collective mismatch: rank 0 called "
                        + describe(first) + " but rank " + q + " called " + describe(all[q]) + ": " + diff);
            }
        }
        long limit = Long.MAX_VALUE;
        int roundBytes = Integer.MAX_VALUE;
        for (int q = 0; q < size; q++) {
            Fields f = all[q];
            if (f.status() != Status.OK) {
                throw error(q, "rank " + q + " " + switch (f.status()) {
                    case ENCODE_FAILED -> "could not encode its object";
                    case OVER_LIMIT -> "has more than its limit of " + f.limit() + " bytes to send";
                    default -> "was called with a wrong argument";
                } + ": " + f.detail() + " (it sent only its header in this round)");
            }
            if (f.length() < 0 || f.largest() < 0 || f.firstBytes() < 0 || f.firstBytes() > block - ObjectHeader.BYTES
                    || f.firstBytes() > f.length()) {
                throw error(q, "rank " + q + " sent a malformed header: length " + f.length() + ", first bytes " + f.firstBytes());
            }
            limit = Math.min(limit, f.limit());
            roundBytes = Math.min(roundBytes, Math.max(MIN_BLOCK, f.roundBytes()));
        }
        return new FirstRound(all, out, block, limit, roundBytes);
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
        if (a.codecHash() != b.codecHash()) {
            return "codecs '" + a.codecId() + "' vs '" + b.codecId() + "'";
        }
        return null;
    }

    private static String describe(Fields f) {
        return f.op().displayName() + "(seq=" + f.sequence() + (f.op().rooted() ? ", root=" + f.root() : "")
                + ", codec '" + f.codecId() + "')";
    }

    /** Fails every rank alike when {@code bytes} (what each rank would hold) is over the call's limit. */
    void requireWithin(FirstRound first, long bytes, String what) {
        if (bytes > first.limit()) {
            throw error(CollectiveException.NO_PEER, name() + " needs " + bytes + " bytes " + what
                    + ", over the limit of " + first.limit() + " (ObjectOptions.maxBytes, the smallest any rank set);"
                    + " nothing but the first round was sent");
        }
    }

    /** The first round as every rank sees it: headers, the agreed limit and round size, and the first bytes. */
    record FirstRound(Fields[] headers, ByteBuf out, int block, long limit, int roundBytes) {

        long length(int q) {
            return headers[q].length();
        }

        /** Copies rank {@code q}'s first bytes into {@code dst} from offset 0. */
        void copyFirst(int q, ObjectBlob dst) {
            int n = headers[q].firstBytes();
            int base = q * block + ObjectHeader.BYTES;
            dst.put(0, n, (d, from, len, at) -> out.getBytes(base + at, d, from, len));
        }
    }
}
