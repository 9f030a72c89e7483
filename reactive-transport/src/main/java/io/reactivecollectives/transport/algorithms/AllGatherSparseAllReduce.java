package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Sparse (COO) SUM all-reduce by all-gather, as gloo's sparse allreduce: each rank coalesces its
 * tensor, the ranks all-gather their metadata (nnz, sparse dims, dtype, dense shape; phase 0, a
 * {@link RingAllGather} of fixed-size blocks), check that the tensors agree, then all-gather every
 * rank's indices and values as blocks of each rank's own length (phase 1, a ring all-gather-v),
 * and every rank sums the parts into one coalesced tensor ({@link SparseTensor#sum}). Traffic is
 * proportional to the non-zeros, not to the dense size.
 */
public final class AllGatherSparseAllReduce {

    private AllGatherSparseAllReduce() {
    }

    /**
     * Emits a new coalesced sparse tensor holding the sum of every rank's {@code input} (the caller
     * releases it); {@code input} is only read.
     */
    public static Mono<SparseTensor> run(Peers p, SparseTensor input) {
        return Mono.usingWhen(Mono.fromCallable(input::coalesce),
                local -> p.size() == 1 ? Mono.fromCallable(local::copy) : exchange(p, local),
                local -> Mono.fromRunnable(local::release));
    }

    private static Mono<SparseTensor> exchange(Peers p, SparseTensor local) {
        int n = p.size();
        int r = p.rank();
        long[] meta = meta(local);
        int metaBytes = meta.length * 8;
        return Mono.usingWhen(
                Mono.fromCallable(() -> Region.allocate(n * metaBytes)),
                metaBuf -> {
                    Region[] blocks = new Region[n];
                    for (int q = 0; q < n; q++) {
                        blocks[q] = new Region(metaBuf, q * metaBytes, metaBytes);
                    }
                    for (int i = 0; i < meta.length; i++) {
                        metaBuf.setLongLE(r * metaBytes + i * 8, meta[i]);
                    }
                    return RingAllGather.run(PhasePeers.of(p, 0), blocks)
                            .then(Mono.defer(() -> data(p, local, read(p, metaBuf, meta.length, meta))));
                },
                metaBuf -> Mono.fromRunnable(metaBuf::release));
    }

    /** [nnz, sparseDim, dtype, ndim, dims...] */
    private static long[] meta(SparseTensor t) {
        long[] shape = t.denseShape();
        long[] m = new long[4 + shape.length];
        m[0] = t.nnz();
        m[1] = t.sparseDim();
        m[2] = t.dtype().ordinal();
        m[3] = shape.length;
        System.arraycopy(shape, 0, m, 4, shape.length);
        return m;
    }

    /** Every rank's nnz, after checking that all the other fields match this rank's. */
    private static long[] read(Peers p, ByteBuf metaBuf, int len, long[] mine) {
        int n = p.size();
        long[] nnz = new long[n];
        for (int q = 0; q < n; q++) {
            long[] m = new long[len];
            for (int i = 0; i < len; i++) {
                m[i] = metaBuf.getLongLE((q * len + i) * 8);
            }
            if (!Arrays.equals(Arrays.copyOfRange(m, 1, len), Arrays.copyOfRange(mine, 1, len))) {
                throw p.protocolError(q, "rank " + q + " has a sparse tensor of " + describe(m) + ", rank " + p.rank()
                        + " one of " + describe(mine));
            }
            if (m[0] < 0) {
                throw p.protocolError(q, "rank " + q + " announced " + m[0] + " non-zeros");
            }
            nnz[q] = m[0];
        }
        return nnz;
    }

    private static String describe(long[] m) {
        DType[] types = DType.values();
        String dtype = m[2] >= 0 && m[2] < types.length ? types[(int) m[2]].toString() : "dtype#" + m[2];
        return dtype + Arrays.toString(Arrays.copyOfRange(m, 4, m.length)) + " with " + m[1] + " sparse dims";
    }

    private static Mono<SparseTensor> data(Peers p, SparseTensor local, long[] nnz) {
        int n = p.size();
        int r = p.rank();
        int sd = local.sparseDim();
        DType dtype = local.dtype();
        long[] dense = local.denseShape();
        long row = 1;
        for (int d = sd; d < dense.length; d++) {
            row *= dense[d];
        }
        int[] idxBytes = new int[n];
        int[] valBytes = new int[n];
        int[] offset = new int[n + 1];
        for (int q = 0; q < n; q++) {
            idxBytes[q] = Math.toIntExact(nnz[q] * sd * 8);
            valBytes[q] = Math.toIntExact(nnz[q] * row * dtype.byteSize());
            offset[q + 1] = Math.addExact(offset[q], idxBytes[q] + valBytes[q]);
        }
        return Mono.usingWhen(
                Mono.fromCallable(() -> Region.allocate(offset[n])),
                buf -> {
                    Region[] blocks = new Region[n];
                    for (int q = 0; q < n; q++) {
                        blocks[q] = new Region(buf, offset[q], idxBytes[q] + valBytes[q]);
                    }
                    blocks[r].sub(0, idxBytes[r]).copyFrom(Region.of(local.indices()));
                    blocks[r].sub(idxBytes[r], valBytes[r]).copyFrom(Region.of(local.values()));
                    return RingAllGather.run(PhasePeers.of(p, 1), blocks).then(Mono.fromCallable(() -> {
                        List<SparseTensor> parts = new ArrayList<>(n);
                        try {
                            for (int q = 0; q < n; q++) {
                                long[] vshape = new long[1 + dense.length - sd];
                                vshape[0] = nnz[q];
                                System.arraycopy(dense, sd, vshape, 1, dense.length - sd);
                                Tensor idx = Tensor.wrap(buf.retainedSlice(offset[q], idxBytes[q]), DType.INT64, sd, nnz[q]);
                                Tensor val = Tensor.wrap(buf.retainedSlice(offset[q] + idxBytes[q], valBytes[q]), dtype, vshape);
                                try {
                                    parts.add(SparseTensor.of(idx, val, dense));
                                } catch (IllegalArgumentException e) {
                                    throw p.protocolError(q, "rank " + q + " sent a malformed sparse tensor: " + e.getMessage());
                                }
                            }
                            return SparseTensor.sum(parts);
                        } finally {
                            parts.forEach(SparseTensor::release);
                        }
                    }));
                },
                buf -> Mono.fromRunnable(buf::release));
    }
}
