package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;

/**
 * What every rank must agree on for a collective, packed into two longs that travel in the header
 * of every DATA frame (so checking it costs no message of its own): the word holds the op, the
 * dtype, the reduce op and the root; the count the element count (per rank, as each op
 * defines it; -1 where ranks may legitimately differ, as all-to-all's splits). A frame whose words
 * differ from the local collective's is never combined: the collective fails on every rank with a
 * message naming both sides ({@link #describe}). The two are packed where a collective's box opens
 * ({@code CollectiveRunner}'s {@code agreementWord} and {@code agreementCount}: a collective that
 * agrees never enters this class); this class reads them back for the messages.
 */
public final class Agreement {

    /** No agreement (frames of groups that do not check). */
    public static final long NONE = 0L;

    private static final OpType[] OPS = OpType.values();
    private static final DType[] DTYPES = DType.values();
    private static final ReduceOp.Kind[] KINDS = ReduceOp.Kind.values();
    private static final io.reactivecollectives.core.Algorithm[] ALGORITHMS = io.reactivecollectives.core.Algorithm.values();

    private Agreement() {
    }

    /**
     * The error for a frame from {@code source} with ({@code word}, {@code count}) that disagrees
     * with {@code box}'s collective on {@code rank}.
     */
    public static io.reactivecollectives.core.CollectiveMismatchException mismatch(
            io.reactivecollectives.transport.group.CollectiveBox box, int rank, int source, long word, long count) {
        long theirs = word & ~io.reactivecollectives.transport.group.CollectiveBox.ACK_REQUESTED;
        String what = rank < source ? describe(box.word(), box.count(), rank, theirs, count, source)
                : describe(theirs, count, source, box.word(), box.count(), rank);
        return new io.reactivecollectives.core.CollectiveMismatchException(box.opName(), rank, box.sequence(), source,
                "collective mismatch: " + what);
    }

    /**
     * The error for chunk {@code c.tag()} of {@code box}'s stream, whose dtype differs between
     * {@code rank} and {@code c.source()}.
     */
    public static io.reactivecollectives.core.CollectiveMismatchException chunkMismatch(
            io.reactivecollectives.transport.group.CollectiveBox box, int rank,
            io.reactivecollectives.transport.group.ChunkConflict c) {
        int source = c.source();
        StringBuilder what = new StringBuilder();
        int end = io.reactivecollectives.transport.group.CollectiveBox.STREAM_END;
        if (c.ours() == end || c.theirs() == end) {   // one rank's stream ended where another's has a chunk
            boolean endedHere = c.ours() == end;
            what.append("the stream ended after ").append(c.tag()).append(c.tag() == 1 ? " chunk" : " chunks").append(" on rank ")
                    .append(endedHere ? rank : source).append(", rank ").append(endedHere ? source : rank)
                    .append(" has a chunk ").append(c.tag()).append(" (").append(dtypeName(endedHere ? c.theirs() : c.ours()))
                    .append("): every rank's stream must have as many chunks");
        } else if (rank < source) {   // the lower rank first, as describe() does
            diff(what, "chunk " + c.tag() + " dtype", dtypeName(c.ours()), rank, dtypeName(c.theirs()), source);
        } else {
            diff(what, "chunk " + c.tag() + " dtype", dtypeName(c.theirs()), source, dtypeName(c.ours()), rank);
        }
        return new io.reactivecollectives.core.CollectiveMismatchException(box.opName(), rank, box.sequence(), source,
                "collective mismatch: " + what);
    }

    private static boolean stream(long w) {
        return (w & io.reactivecollectives.transport.group.CollectiveBox.STREAM) != 0;
    }

    private static String op(long w) {
        if (stream(w)) {
            return "allReduceStream";
        }
        int i = (int) (w >>> 56 & 0xFF) - 1;
        return i >= 0 && i < OPS.length ? OPS[i].displayName() : "?";
    }

    private static String dtype(long w) {
        return dtypeName((int) (w >>> 48 & 0xFF));
    }

    /** A dtype's name from its ordinal plus one (0: none). */
    private static String dtypeName(int plusOne) {
        int i = plusOne - 1;
        return i < 0 ? "none" : i < DTYPES.length ? DTYPES[i].toString().toLowerCase(java.util.Locale.ROOT) : "?";
    }

    private static String reduceOp(long w) {
        int i = (int) (w >>> 40 & 0xFF) - 1;
        return i < 0 ? "none" : i < KINDS.length ? KINDS[i].name() : "?";
    }

    private static String algorithm(long w) {
        int i = (int) (w >>> 33 & 0x7F) - 1;
        return i < 0 ? "any" : i < ALGORITHMS.length ? ALGORITHMS[i].name().toLowerCase(java.util.Locale.ROOT) : "?";
    }

    private static long root(long w) {
        return stream(w) ? -1 : (w & 0xFFFF_FFFFL) - 1;   // a stream has no root: its chunks' dtypes are there
    }

    /**
     * What differs between rank {@code a}'s (word, count) and rank {@code b}'s, e.g.
     * {@code dtype float32 on rank 0, int32 on rank 1}; several differences are joined with "; ".
     */
    public static String describe(long wordA, long countA, int a, long wordB, long countB, int b) {
        StringBuilder sb = new StringBuilder();
        if (!op(wordA).equals(op(wordB))) {
            diff(sb, "op", op(wordA), a, op(wordB), b);
        } else {
            if (!dtype(wordA).equals(dtype(wordB))) {
                diff(sb, "dtype", dtype(wordA), a, dtype(wordB), b);
            }
            if (!reduceOp(wordA).equals(reduceOp(wordB))) {
                diff(sb, "reduce op", reduceOp(wordA), a, reduceOp(wordB), b);
            }
            if (root(wordA) != root(wordB)) {
                diff(sb, "root", String.valueOf(root(wordA)), a, String.valueOf(root(wordB)), b);
            }
        }
        if (countA != countB) {
            diff(sb, "element count", String.valueOf(countA), a, String.valueOf(countB), b);
        }
        if (sb.length() == 0 && !algorithm(wordA).equals(algorithm(wordB))) {
            // only when nothing else differs: another size or root may choose another algorithm by itself
            diff(sb, "algorithm", algorithm(wordA), a, algorithm(wordB), b);
            sb.append(" (forced through CollectiveOptions on some ranks only, or settings that differ between the ranks)");
        }
        return sb.length() == 0 ? "ranks " + a + " and " + b + " disagree" : sb.toString();
    }

    private static void diff(StringBuilder sb, String what, String x, int a, String y, int b) {
        sb.append(sb.length() == 0 ? "" : "; ").append(what).append(' ').append(x).append(" on rank ").append(a)
                .append(", ").append(y).append(" on rank ").append(b);
    }
}
