package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * PyTorch's {@code powerSGD_hook} (Vogels et al., 2019): each gradient of two or more dimensions is
 * seen as a matrix M (rows = dimension 0) and replaced by a rank-r approximation computed with one
 * step of subspace iteration across ranks:
 * <ol>
 *   <li>M += this rank's error from the last iteration (error feedback);</li>
 *   <li>P = M Q (Q: the previous iteration's Q with warm start, else seeded random, orthogonalized);</li>
 *   <li>all-reduce P (SUM), orthogonalize P's columns;</li>
 *   <li>Q = M<sup>T</sup> P, all-reduce Q (SUM), divide by the world size;</li>
 *   <li>M' = P Q<sup>T</sup>; the error becomes M - M'.</li>
 * </ol>
 * 1-D gradients and matrices too small to gain from compression are all-reduced uncompressed, in one
 * collective issued before P's. Until the state's start iteration the hook is a plain averaging
 * all-reduce. The {@code Mono} emits the bucket's buffer holding the averaged approximation.
 *
 * <p>Only FLOAT32 buckets are compressed (others go uncompressed), and sparse buckets are made dense
 * and all-reduced uncompressed.
 */
public final class PowerSgdHook implements CommHook {

    private final PowerSgdState state;
    private final AllReduceHook plain;

    /**
     * A PowerSGD hook with the state it keeps across iterations.
     *
     * @param state the settings, the group and the per-bucket memories
     */
    public PowerSgdHook(PowerSgdState state) {
        this.state = Objects.requireNonNull(state, "state");
        this.plain = new AllReduceHook(state.group());
    }

    /** {@return the state: settings, iteration count and memories} */
    public PowerSgdState state() {
        return state;
    }

    @Override
    public Mono<Tensor> runHook(GradBucket bucket) {
        return Mono.defer(() -> {
            if (state.iter < state.startPowerSgdIter() || bucket.isSparse() || bucket.buffer().dtype() != DType.FLOAT32) {
                state.maybeIncreaseIter(bucket);
                return plain.runHook(bucket);
            }
            return compress(bucket);
        });
    }

    /** A gradient seen as an n x m matrix at {@code offset} in the bucket. */
    private record Matrix(int offset, int n, int m, int r, int pOffset, int qOffset) {
    }

    private Mono<Tensor> compress(GradBucket bucket) {
        ProcessGroup group = state.group();
        int world = group.size();
        int idx = bucket.index();
        Tensor buffer = bucket.buffer();
        float[] input = FloatOps.read(buffer);

        if (state.useErrorFeedback()) {
            float[] err = state.errors.get(idx);
            if (err != null && err.length == input.length) {
                for (int i = 0; i < input.length; i++) {
                    input[i] += err[i];
                }
            } else {
                state.errors.put(idx, new float[input.length]);
            }
        }
        float[] inputCopy = state.useErrorFeedback() ? input.clone() : null;

        // Split the bucket into matrices to compress and tensors to all-reduce as they are.
        List<Matrix> matrices = new ArrayList<>();
        List<int[]> uncompressed = new ArrayList<>(); // {offset, length}
        int uncompressedSize = 0;
        int pSize = 0;
        int qSize = 0;
        List<long[]> shapes = bucket.shapes();
        long[] offsets = bucket.offsets();
        long[] lengths = bucket.lengths();
        for (int i = 0; i < shapes.size(); i++) {
            long[] shape = shapes.get(i);
            int off = (int) offsets[i];
            int len = (int) lengths[i];
            if (shape.length > 1 && shape[0] > 0 && len > 0) {
                int n = (int) shape[0];
                int m = len / n;
                int r = Math.min(Math.min(n, m), state.matrixApproximationRank());
                if ((double) (n + m) * r * state.minCompressionRate() < (double) n * m) {
                    matrices.add(new Matrix(off, n, m, r, pSize, qSize));
                    pSize += n * r;
                    qSize += m * r;
                    continue;
                }
            }
            uncompressed.add(new int[] {off, len});
            uncompressedSize += len;
        }

        boolean randomizeQs = !state.warmStart() || !state.pMemory.containsKey(idx)
                || state.pMemory.get(idx).length != pSize || state.qMemory.get(idx).length != qSize;
        if (randomizeQs) {
            state.pMemory.put(idx, new float[pSize]);
            state.qMemory.put(idx, new float[qSize]);
        }
        float[] p = state.pMemory.get(idx);
        float[] q = state.qMemory.get(idx);
        if (randomizeQs) {
            Random random = new Random(state.rng.nextInt(1_000_000_000));
            for (Matrix mx : matrices) {
                for (int k = 0; k < mx.m * mx.r; k++) {
                    q[mx.qOffset + k] = (float) random.nextGaussian();
                }
            }
        }
        for (Matrix mx : matrices) {
            orthogonalize(q, mx.qOffset, mx.m, mx.r, state.orthogonalizationEpsilon());
            // P = M Q
            multiply(input, mx.offset, mx.n, mx.m, q, mx.qOffset, mx.r, p, mx.pOffset);
        }

        float[] uncompressedValues = new float[uncompressedSize];
        int at = 0;
        for (int[] u : uncompressed) {
            System.arraycopy(input, u[0], uncompressedValues, at, u[1]);
            at += u[1];
        }

        Mono<Void> uncompressedStage = uncompressedSize == 0 ? Mono.empty()
                : allReduceSum(group, uncompressedValues).doOnNext(sum -> {
                    int pos = 0;
                    for (int[] u : uncompressed) {
                        for (int k = 0; k < u[1]; k++) {
                            input[u[0] + k] = sum[pos + k] / world;
                        }
                        pos += u[1];
                    }
                }).then();

        final int pTotal = pSize;
        final int qTotal = qSize;
        Mono<float[]> pStage = pSize == 0 ? Mono.just(p) : allReduceSum(group, p);
        return uncompressedStage
                .then(pStage)
                .flatMap(pSum -> {
                    System.arraycopy(pSum, 0, p, 0, pTotal);
                    for (Matrix mx : matrices) {
                        orthogonalize(p, mx.pOffset, mx.n, mx.r, state.orthogonalizationEpsilon());
                        // Q = M^T P
                        multiplyTransposed(input, mx.offset, mx.n, mx.m, p, mx.pOffset, mx.r, q, mx.qOffset);
                    }
                    return qTotal == 0 ? Mono.just(q) : allReduceSum(group, q);
                })
                .map(qSum -> {
                    for (int k = 0; k < qTotal; k++) {
                        q[k] = qSum[k] / world;
                    }
                    for (Matrix mx : matrices) {
                        // M' = P Q^T
                        approximate(p, mx.pOffset, q, mx.qOffset, mx.n, mx.m, mx.r, input, mx.offset);
                    }
                    if (state.useErrorFeedback()) {
                        float[] err = state.errors.get(idx);
                        for (int k = 0; k < input.length; k++) {
                            err[k] = inputCopy[k] - input[k];
                        }
                    }
                    if (!state.warmStart()) {
                        state.pMemory.clear();
                        state.qMemory.clear();
                    }
                    state.maybeIncreaseIter(bucket);
                    FloatOps.write(buffer, input);
                    return buffer;
                });
    }

    /** All-reduces a copy of {@code values} with SUM and emits the sums. */
    private static Mono<float[]> allReduceSum(ProcessGroup group, float[] values) {
        return Mono.using(
                () -> {
                    Tensor t = Tensor.empty(DType.FLOAT32, values.length);
                    FloatOps.write(t, values);
                    return t;
                },
                t -> group.allReduce(t, ReduceOp.SUM).map(FloatOps::read),
                Tensor::release);
    }

    /** Gram-Schmidt on the r columns of the n x r row-major matrix at {@code off}, as torch's {@code _orthogonalize}. */
    static void orthogonalize(float[] a, int off, int n, int r, double epsilon) {
        for (int i = 0; i < r; i++) {
            double norm = 0;
            for (int k = 0; k < n; k++) {
                double v = a[off + k * r + i];
                norm += v * v;
            }
            norm = Math.sqrt(norm);
            double scale = epsilon == 0 ? (norm == 0 ? 0 : 1 / norm) : 1 / (norm + epsilon);
            for (int k = 0; k < n; k++) {
                a[off + k * r + i] = (float) (a[off + k * r + i] * scale);
            }
            for (int j = i + 1; j < r; j++) {
                double dot = 0;
                for (int k = 0; k < n; k++) {
                    dot += (double) a[off + k * r + i] * a[off + k * r + j];
                }
                for (int k = 0; k < n; k++) {
                    a[off + k * r + j] = (float) (a[off + k * r + j] - dot * a[off + k * r + i]);
                }
            }
        }
    }

    /** out (n x r) = M (n x m) x Q (m x r). */
    private static void multiply(float[] mat, int mOff, int n, int m, float[] q, int qOff, int r, float[] out, int outOff) {
        for (int i = 0; i < n; i++) {
            for (int c = 0; c < r; c++) {
                double s = 0;
                for (int k = 0; k < m; k++) {
                    s += (double) mat[mOff + i * m + k] * q[qOff + k * r + c];
                }
                out[outOff + i * r + c] = (float) s;
            }
        }
    }

    /** out (m x r) = M^T (m x n) x P (n x r). */
    private static void multiplyTransposed(float[] mat, int mOff, int n, int m, float[] p, int pOff, int r, float[] out, int outOff) {
        double[] acc = new double[m * r];
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < m; k++) {
                double v = mat[mOff + i * m + k];
                for (int c = 0; c < r; c++) {
                    acc[k * r + c] += v * p[pOff + i * r + c];
                }
            }
        }
        for (int k = 0; k < m * r; k++) {
            out[outOff + k] = (float) acc[k];
        }
    }

    /** mat (n x m) = P (n x r) x Q^T (r x m). */
    private static void approximate(float[] p, int pOff, float[] q, int qOff, int n, int m, int r, float[] mat, int mOff) {
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < m; k++) {
                double s = 0;
                for (int c = 0; c < r; c++) {
                    s += (double) p[pOff + i * r + c] * q[qOff + k * r + c];
                }
                mat[mOff + i * m + k] = (float) s;
            }
        }
    }

    @Override
    public String toString() {
        return "PowerSgdHook[rank " + state.matrixApproximationRank() + ", start " + state.startPowerSgdIter() + "]";
    }
}
