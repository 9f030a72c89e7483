package io.reactivecollectives.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** How {@link Tensor#slice}, {@link Tensor#chunk} and {@link Tensor#chunks} cut a tensor into views. */
final class TensorViews {

    private TensorViews() {
    }

    /** {@link Tensor#slice}: rows {@code [start, end)} of dimension 0. */
    static Tensor slice(Tensor t, long start, long end) {
        if (t.dim() == 0) {
            throw new IllegalArgumentException("slice of a 0-dimensional tensor");
        }
        long rows = t.size(0);
        if (start < 0 || end < start || end > rows) {
            throw new IndexOutOfBoundsException("slice [" + start + ", " + end + ") of dimension 0 with size " + rows);
        }
        long[] s = t.shape();
        s[0] = end - start;
        long row = rows == 0 ? Tensor.numelOf(java.util.Arrays.copyOfRange(s, 1, s.length)) : t.numel() / rows;
        return t.view(start * row, (end - start) * row, s);
    }

    /** {@code torch.chunk}: at most {@code n} views of {@code ceil(rows / n)} rows along dimension 0. */
    static List<Tensor> chunk(Tensor t, int n) {
        if (n <= 0) {
            throw new IllegalArgumentException("chunk count must be > 0, got " + n);
        }
        if (t.dim() == 0) {
            throw new IllegalArgumentException("chunk of a 0-dimensional tensor");
        }
        long rows = t.size(0);
        if (rows == 0) {
            return Collections.singletonList(t.slice(0, 0));
        }
        long per = (rows + n - 1) / n;
        List<Tensor> out = new ArrayList<>();
        for (long s = 0; s < rows; s += per) {
            out.add(t.slice(s, Math.min(rows, s + per)));
        }
        return out;
    }

    /** {@code n} contiguous flat chunks as even as possible, the first {@code numel % n} one element longer. */
    static List<Chunk> chunks(Tensor t, int n) {
        if (n <= 0) {
            throw new IllegalArgumentException("chunk count must be > 0, got " + n);
        }
        List<Chunk> out = new ArrayList<>(n);
        long base = t.numel() / n;
        long extra = t.numel() % n;
        long off = 0;
        for (int i = 0; i < n; i++) {
            long len = base + (i < extra ? 1 : 0);
            out.add(new Chunk(i, off, t.narrow(off, len)));
            off += len;
        }
        return out;
    }
}
