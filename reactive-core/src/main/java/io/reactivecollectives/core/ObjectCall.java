package io.reactivecollectives.core;

import io.reactivecollectives.core.ObjectHeader.Fields;
import io.reactivecollectives.core.ObjectHeader.Status;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One object collective on one rank: the group, the op, its object-call sequence number, the
 * root and options; this rank's header, the sizes and buffers of the rounds after the first
 * ({@link ObjectFirstRound} runs the first), and the errors, each naming the op, the rank, the
 * sequence number and the peer to blame.
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
    /** Cancelled while it waited for its turn: it runs only to announce that ({@link Status#CANCELLED}). */
    private final boolean cancelled;

    ObjectCall(ProcessGroup group, ObjectOp op, long sequence, int root, ObjectOptions options, String badArgument,
               boolean cancelled) {
        this.group = group;
        this.op = op;
        this.sequence = sequence;
        this.root = root;
        this.rank = group.rank();
        this.size = group.size();
        this.options = options;
        this.badArgument = badArgument;
        this.cancelled = cancelled;
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
     * This rank's header for its encoded part {@code mine} ({@code largest}: a scatter root's
     * largest piece, else its length), announcing its first bytes where {@code sendsFirst}. A wrong
     * argument (a root outside the group, null options) overrides the status: the rank still takes
     * part in the first round and announces it there ({@link Status#BAD_ARGUMENT}), so that every
     * rank fails alike (its peers, given another root, see a mismatch) instead of waiting for it.
     */
    Fields header(Codec<?> codec, ObjectCoding.Encoded mine, long largest, boolean sendsFirst) {
        String id = "";
        String wrong = badArgument;
        try {
            id = codec == null ? "" : codec.id();
        } catch (RuntimeException | LinkageError | AssertionError e) {
            wrong = wrong != null ? wrong : "the codec's id() failed: " + e;   // announced like any wrong argument
        }
        Status status = cancelled ? Status.CANCELLED : wrong != null ? Status.BAD_ARGUMENT : mine.status();
        String detail = cancelled ? "cancelled on rank " + rank + " while it waited for its turn" : wrong != null ? wrong : mine.detail();
        int first = sendsFirst && status == Status.OK ? (int) Math.min(mine.length(), firstData()) : 0;
        return Fields.of(op, status, root, size, sequence, id, mine.length(), largest,
                options.maxBytes(), options.roundBytes(), first, detail);
    }
}
