package io.reactivecollectives.core.observe;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What ranks exchange before a collective when the mismatch check is on (as c10d's
 * {@code CollectiveFingerPrint} under {@code TORCH_DISTRIBUTED_DEBUG=DETAIL}): the op, its sequence
 * number, the dtype, the shapes that must agree across ranks, the root and the reduce op. Every rank
 * must hold an equal fingerprint; {@link #describeDifference} says what differs.
 *
 * <p>{@link #encode(ByteBuf)} writes a compact binary form (a few dozen bytes: magic, version, op,
 * sequence, dtype, root, reduce op, varint shapes); {@link #decode(ByteBuf)} reads it back and
 * rejects malformed input with an {@link IllegalArgumentException}, never reading past the buffer.
 *
 * @param op       the collective
 * @param sequence its sequence number in the group
 * @param dtype    the element type, null for none (barrier)
 * @param shapes   the shapes that must be equal on every rank (the caller leaves out those that may
 *                 legitimately differ, such as the uneven splits of an all-to-all)
 * @param root     the root rank, -1 for none
 * @param reduceOp the reduction, null for none
 */
public record CollectiveFingerprint(OpType op, long sequence, DType dtype, List<long[]> shapes, int root,
                                    ReduceOp reduceOp) {

    /** First byte of an encoded fingerprint. */
    public static final byte MAGIC = 0x46;
    /** Encoding version. */
    public static final byte VERSION = 1;
    /** Upper bound on the number of shapes a decoded fingerprint may carry. */
    public static final int MAX_SHAPES = 1 << 16;
    /** Upper bound on the dimensions of a decoded shape. */
    public static final int MAX_DIMS = 64;

    private static final OpType[] OPS = OpType.values();
    private static final DType[] DTYPES = DType.values();
    private static final ReduceOp.Kind[] KINDS = ReduceOp.Kind.values();

    /**
     * Copies the shapes.
     *
     * @param op       the collective
     * @param sequence its sequence number
     * @param dtype    the element type, null for none
     * @param shapes   the shapes that must be equal on every rank (null: none)
     * @param root     the root rank, -1 for none
     * @param reduceOp the reduction, null for none
     * @throws NullPointerException when {@code op} is null
     */
    public CollectiveFingerprint {
        Objects.requireNonNull(op, "op");
        long[][] copy = new long[shapes == null ? 0 : shapes.size()][];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = shapes.get(i).clone();
        }
        shapes = List.of(copy);
    }

    /**
     * The fingerprint of a collective over {@code tensors}: their dtype (the first one's) and shapes.
     *
     * @param op       the collective
     * @param sequence its sequence number
     * @param tensors  the tensors (non-empty for a dtype)
     * @param root     the root rank, -1 for none
     * @param reduceOp the reduction, null for none
     * @return the fingerprint
     */
    public static CollectiveFingerprint of(OpType op, long sequence, List<Tensor> tensors, int root, ReduceOp reduceOp) {
        DType dtype = tensors.isEmpty() ? null : tensors.get(0).dtype();
        long[][] shapes = new long[tensors.size()][];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = tensors.get(i).shape();
        }
        return new CollectiveFingerprint(op, sequence, dtype, java.util.Arrays.asList(shapes), root, reduceOp);
    }

    /**
     * The fingerprint of a collective over one tensor.
     *
     * @param op       the collective
     * @param sequence its sequence number
     * @param tensor   the tensor
     * @param root     the root rank, -1 for none
     * @param reduceOp the reduction, null for none
     * @return the fingerprint
     */
    public static CollectiveFingerprint of(OpType op, long sequence, Tensor tensor, int root, ReduceOp reduceOp) {
        return new CollectiveFingerprint(op, sequence, tensor.dtype(), List.<long[]>of(tensor.shape()), root, reduceOp);
    }

    // ------------------------------------------------------------------ encoding

    /**
     * Writes the binary form to {@code out} (at its writer index).
     *
     * @param out the buffer written to
     * @return {@code out}
     */
    public ByteBuf encode(ByteBuf out) {
        out.writeByte(MAGIC);
        out.writeByte(VERSION);
        out.writeByte(op.ordinal());
        out.writeLong(sequence);
        out.writeByte(dtype == null ? 0 : dtype.ordinal() + 1);
        out.writeInt(root);
        out.writeByte(reduceOp == null ? 0 : reduceOp.kind().ordinal() + 1);
        if (reduceOp != null && reduceOp.kind() == ReduceOp.Kind.PREMUL_SUM) {
            out.writeDouble(reduceOp.factor());
        }
        writeVarLong(out, shapes.size());
        for (long[] s : shapes) {
            writeVarLong(out, s.length);
            for (long d : s) {
                writeVarLong(out, d);
            }
        }
        return out;
    }

    /**
     * The number of bytes {@link #encode(ByteBuf)} writes.
     *
     * @return the encoded length in bytes
     */
    public int encodedLength() {
        int n = 1 + 1 + 1 + 8 + 1 + 4 + 1;
        if (reduceOp != null && reduceOp.kind() == ReduceOp.Kind.PREMUL_SUM) {
            n += 8;
        }
        n += varLongLength(shapes.size());
        for (long[] s : shapes) {
            n += varLongLength(s.length);
            for (long d : s) {
                n += varLongLength(d);
            }
        }
        return n;
    }

    /**
     * Reads a fingerprint written by {@link #encode(ByteBuf)}, advancing the reader index.
     *
     * @param in the buffer read from
     * @return the fingerprint
     * @throws IllegalArgumentException if the bytes are not a well-formed fingerprint
     */
    public static CollectiveFingerprint decode(ByteBuf in) {
        need(in, 3 + 8 + 1 + 4 + 1);
        byte magic = in.readByte();
        if (magic != MAGIC) {
            throw bad("magic byte 0x" + Integer.toHexString(magic & 0xff) + ", expected 0x46");
        }
        byte version = in.readByte();
        if (version != VERSION) {
            throw bad("version " + version + ", expected " + VERSION);
        }
        int opIndex = in.readUnsignedByte();
        if (opIndex >= OPS.length) {
            throw bad("op index " + opIndex);
        }
        long seq = in.readLong();
        int dt = in.readUnsignedByte();
        if (dt > DTYPES.length) {
            throw bad("dtype index " + dt);
        }
        int root = in.readInt();
        int kind = in.readUnsignedByte();
        if (kind > KINDS.length) {
            throw bad("reduce op index " + kind);
        }
        ReduceOp reduceOp = null;
        if (kind > 0) {
            ReduceOp.Kind k = KINDS[kind - 1];
            if (k == ReduceOp.Kind.PREMUL_SUM) {
                need(in, 8);
                double f = in.readDouble();
                if (!Double.isFinite(f)) {
                    throw bad("PREMUL_SUM factor " + f);
                }
                reduceOp = ReduceOp.premulSum(f);
            } else {
                reduceOp = ReduceOp.of(k);
            }
        }
        long count = readVarLong(in);
        if (count > MAX_SHAPES) {
            throw bad(count + " shapes, more than " + MAX_SHAPES);
        }
        List<long[]> shapes = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            long dims = readVarLong(in);
            if (dims > MAX_DIMS) {
                throw bad("shape of " + dims + " dimensions, more than " + MAX_DIMS);
            }
            long[] s = new long[(int) dims];
            for (int j = 0; j < dims; j++) {
                s[j] = readVarLong(in);
            }
            shapes.add(s);
        }
        return new CollectiveFingerprint(OPS[opIndex], seq, dt == 0 ? null : DTYPES[dt - 1], shapes, root, reduceOp);
    }

    private static void need(ByteBuf in, int n) {
        if (in.readableBytes() < n) {
            throw bad("truncated: " + in.readableBytes() + " bytes left, " + n + " needed");
        }
    }

    private static IllegalArgumentException bad(String why) {
        return new IllegalArgumentException("malformed collective fingerprint: " + why);
    }

    private static void writeVarLong(ByteBuf out, long v) {
        if (v < 0) {
            throw new IllegalArgumentException("collective fingerprint: negative size " + v);
        }
        while ((v & ~0x7FL) != 0) {
            out.writeByte((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    private static int varLongLength(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            n++;
            v >>>= 7;
        }
        return n;
    }

    private static long readVarLong(ByteBuf in) {
        long v = 0;
        for (int shift = 0; shift < 63; shift += 7) {
            need(in, 1);
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw bad("varint longer than 9 bytes");
    }

    // ------------------------------------------------------------------ comparison

    /**
     * Whether {@code other} describes the same collective (every field equal).
     *
     * @param other the other rank's fingerprint
     * @return whether they match
     */
    public boolean matches(CollectiveFingerprint other) {
        return describeDifference(this, other).isEmpty();
    }

    /**
     * What differs between two fingerprints, field by field
     * ({@code "op allReduce vs broadcast, shapes [[4]] vs [[8]]"}); empty when they match.
     *
     * @param a one fingerprint
     * @param b the other
     * @return the differences, or an empty string
     */
    public static String describeDifference(CollectiveFingerprint a, CollectiveFingerprint b) {
        List<String> diffs = new ArrayList<>();
        if (a.op != b.op) {
            diffs.add("op " + a.op.displayName() + " vs " + b.op.displayName());
        }
        if (a.sequence != b.sequence) {
            diffs.add("sequence number " + a.sequence + " vs " + b.sequence);
        }
        if (a.dtype != b.dtype) {
            diffs.add("dtype " + a.dtype + " vs " + b.dtype);
        }
        if (!sameShapes(a.shapes, b.shapes)) {
            diffs.add((a.shapes.size() != b.shapes.size() ? "number of tensors " + a.shapes.size() + " vs "
                    + b.shapes.size() + ", " : "") + "shapes " + shapesText(a.shapes) + " vs " + shapesText(b.shapes));
        }
        if (a.root != b.root) {
            diffs.add("root " + a.root + " vs " + b.root);
        }
        if (!Objects.equals(a.reduceOp, b.reduceOp)) {
            diffs.add("reduce op " + a.reduceOp + " vs " + b.reduceOp);
        }
        return String.join(", ", diffs);
    }

    /**
     * Compares the fingerprints of all ranks ({@code byRank.get(r)} is rank r's): null when all
     * match, else a message naming the ranks on each side and what differed, e.g.
     * {@code "ranks 0, 2 have allReduce(seq=5, float32, [[4]], op=SUM) but rank 1 has
     * allReduce(seq=5, float32, [[8]], op=SUM): shapes [[4]] vs [[8]]"}.
     *
     * @param byRank one fingerprint per rank, in rank order
     * @return the message, or null when all match
     */
    public static String describeMismatch(List<CollectiveFingerprint> byRank) {
        Map<CollectiveFingerprint, List<Integer>> groups = new LinkedHashMap<>();
        outer:
        for (int r = 0; r < byRank.size(); r++) {
            CollectiveFingerprint f = byRank.get(r);
            for (Map.Entry<CollectiveFingerprint, List<Integer>> g : groups.entrySet()) {
                if (g.getKey().matches(f)) {
                    g.getValue().add(r);
                    continue outer;
                }
            }
            List<Integer> rs = new ArrayList<>();
            rs.add(r);
            groups.put(f, rs);
        }
        if (groups.size() <= 1) {
            return null;
        }
        List<Map.Entry<CollectiveFingerprint, List<Integer>>> gs = new ArrayList<>(groups.entrySet());
        // the largest group first: the others are the odd ones out
        gs.sort((x, y) -> Integer.compare(y.getValue().size(), x.getValue().size()));
        Map.Entry<CollectiveFingerprint, List<Integer>> main = gs.get(0);
        StringBuilder sb = new StringBuilder();
        sb.append(FlightRecorderAnalyzer.ranks(main.getValue())).append(main.getValue().size() == 1 ? " has " : " have ")
                .append(main.getKey());
        for (Map.Entry<CollectiveFingerprint, List<Integer>> g : gs.subList(1, gs.size())) {
            sb.append(" but ").append(FlightRecorderAnalyzer.ranks(g.getValue()))
                    .append(g.getValue().size() == 1 ? " has " : " have ").append(g.getKey()).append(": ")
                    .append(describeDifference(main.getKey(), g.getKey()));
        }
        return sb.toString();
    }

    private static boolean sameShapes(List<long[]> a, List<long[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String shapesText(List<long[]> shapes) {
        return shapes.stream().map(Arrays::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CollectiveFingerprint && matches((CollectiveFingerprint) o);
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(op, sequence, dtype, root, reduceOp);
        for (long[] s : shapes) {
            h = 31 * h + Arrays.hashCode(s);
        }
        return h;
    }

    /** {@code allReduce(seq=5, float32, [[4]], op=SUM)}, with root where there is one. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(op.displayName()).append("(seq=").append(sequence);
        if (dtype != null) {
            sb.append(", ").append(dtype);
        }
        sb.append(", ").append(shapesText(shapes));
        if (root >= 0) {
            sb.append(", root=").append(root);
        }
        if (reduceOp != null) {
            sb.append(", op=").append(reduceOp);
        }
        return sb.append(')').toString();
    }
}
