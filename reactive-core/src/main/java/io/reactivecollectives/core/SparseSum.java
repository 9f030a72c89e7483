package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.List;

/**
 * The arithmetic of sparse tensors behind {@link SparseTensor#sum(List)}, {@link SparseTensor#coalesce()}
 * and {@link SparseTensor#toDense()}: the entries of all parts sorted by index (row-major order of
 * the dense tensor), equal indices merged, and their values added with the dtype's SUM.
 */
final class SparseSum {

    private SparseSum() {
    }

    /** The coalesced sum of {@code parts} (see {@link SparseTensor#sum(List)}); none is consumed. */
    static SparseTensor sum(List<SparseTensor> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("sum of no sparse tensors");
        }
        SparseTensor first = parts.get(0);
        long[] denseShape = first.denseShape();
        int sd = first.sparseDim();
        DType dtype = first.dtype();
        long total = 0;
        for (SparseTensor p : parts) {
            if (!Arrays.equals(p.denseShape(), denseShape) || p.sparseDim() != sd || p.dtype() != dtype) {
                throw new IllegalArgumentException("sparse tensors differ: " + first + " and " + p);
            }
            total += p.nnz();
        }
        if (parts.size() == 1 && (first.isCoalesced() || increasing(first))) {
            // already sorted without repeats (a gradient's rows as found): coalescing it is a copy
            return new SparseTensor(first.indices().copy(), first.values().copy(), denseShape, true);
        }
        int n = Math.toIntExact(total);
        // gather (part, entry) in one list
        int[] partOf = new int[n];
        int[] entryOf = new int[n];
        int w = 0;
        for (int p = 0; p < parts.size(); p++) {
            for (int k = 0; k < parts.get(p).nnz(); k++) {
                partOf[w] = p;
                entryOf[w] = k;
                w++;
            }
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            SparseTensor pa = parts.get(partOf[a]);
            SparseTensor pb = parts.get(partOf[b]);
            for (int d = 0; d < sd; d++) {
                int c = Long.compare(pa.indices().getLong((long) d * pa.nnz() + entryOf[a]),
                        pb.indices().getLong((long) d * pb.nnz() + entryOf[b]));
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        // count unique
        int unique = 0;
        for (int i = 0; i < n; i++) {
            if (i == 0 || !sameIndex(parts, partOf, entryOf, order[i - 1], order[i], sd)) {
                unique++;
            }
        }
        long row = first.rowElements();
        long[] vshape = first.values().shape();
        vshape[0] = unique;
        Tensor idx = Tensor.empty(DType.INT64, sd, unique);
        Tensor val = Tensor.zeros(dtype, vshape);
        int u = -1;
        for (int i = 0; i < n; i++) {
            int e = order[i];
            SparseTensor p = parts.get(partOf[e]);
            if (i == 0 || !sameIndex(parts, partOf, entryOf, order[i - 1], e, sd)) {
                u++;
                for (int d = 0; d < sd; d++) {
                    idx.setLong((long) d * unique + u, p.indices().getLong((long) d * p.nnz() + entryOf[e]));
                }
            }
            addInto(dtype, val.buffer(), u * row, p.values().buffer(), entryOf[e] * row, row);
        }
        return new SparseTensor(idx, val, denseShape, true);
    }

    /** Whether {@code t}'s entries are in strictly increasing row-major order of their indices. */
    private static boolean increasing(SparseTensor t) {
        int sd = t.sparseDim();
        long nnz = t.nnz();
        for (long k = 1; k < nnz; k++) {
            int c = 0;
            for (int d = 0; d < sd && c == 0; d++) {
                c = Long.compare(t.indices().getLong(d * nnz + k - 1), t.indices().getLong(d * nnz + k));
            }
            if (c >= 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameIndex(List<SparseTensor> parts, int[] partOf, int[] entryOf, int a, int b, int sd) {
        SparseTensor pa = parts.get(partOf[a]);
        SparseTensor pb = parts.get(partOf[b]);
        for (int d = 0; d < sd; d++) {
            if (pa.indices().getLong((long) d * pa.nnz() + entryOf[a]) != pb.indices().getLong((long) d * pb.nnz() + entryOf[b])) {
                return false;
            }
        }
        return true;
    }

    /** dst[dstOff + i] += src[srcOff + i] for i < count, element offsets, with the dtype's SUM. */
    static void addInto(DType dtype, ByteBuf dst, long dstOff, ByteBuf src, long srcOff, long count) {
        int es = dtype.byteSize();
        int d = (int) (dstOff * es);
        int s = (int) (srcOff * es);
        for (int i = 0; i < count; i++, d += es, s += es) {
            switch (dtype) {
                case BOOL: dst.setByte(d, (dst.getByte(d) != 0 || src.getByte(s) != 0) ? 1 : 0); break;
                case UINT8:
                case INT8: dst.setByte(d, dst.getByte(d) + src.getByte(s)); break;
                case INT32: dst.setIntLE(d, dst.getIntLE(d) + src.getIntLE(s)); break;
                case INT64: dst.setLongLE(d, dst.getLongLE(d) + src.getLongLE(s)); break;
                case FLOAT16: dst.setShortLE(d, HalfFloats.floatToHalf(
                        HalfFloats.halfToFloat(dst.getShortLE(d)) + HalfFloats.halfToFloat(src.getShortLE(s)))); break;
                case BFLOAT16: dst.setShortLE(d, HalfFloats.floatToBfloat16(
                        HalfFloats.bfloat16ToFloat(dst.getShortLE(d)) + HalfFloats.bfloat16ToFloat(src.getShortLE(s)))); break;
                case FLOAT32: dst.setFloatLE(d, dst.getFloatLE(d) + src.getFloatLE(s)); break;
                case FLOAT64: dst.setDoubleLE(d, dst.getDoubleLE(d) + src.getDoubleLE(s)); break;
                default: throw new AssertionError(dtype);
            }
        }
    }
}
