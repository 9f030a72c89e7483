package io.reactivecollectives.samples.djl;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/**
 * Deterministic synthetic token classification, generated from a seed (nothing is downloaded).
 *
 * <p>Sample {@code i} is a function of {@code (seed, i)} alone, so a rank that draws its shard
 * of a global batch sees exactly the samples one process sees on the whole batch. Its generator
 * is SplitMix64 seeded with {@code seed ^ (i * 0xD1B54A32D192ED03)}: first a hidden class
 * {@code c = next() mod classes}, then each of the {@code seq} tokens is, when
 * {@code next() mod 2 == 0}, a token of bucket {@code c} ({@code c + classes * (next() mod
 * (vocab / classes))}), otherwise uniform ({@code next() mod vocab}); values are taken as
 * unsigned 64-bit integers. The label is the bucket ({@code token mod classes}) that holds the
 * most tokens, the smallest on a tie: a function of the tokens, learnable from the mean of the
 * token embeddings, so the loss visibly falls. The PyTorch mirror implements the same rule.
 */
public final class SyntheticTokens {

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long SAMPLE_STRIDE = 0xD1B54A32D192ED03L;

    private final long seed;
    private final int vocab;
    private final int seq;
    private final int classes;

    /**
     * Creates the generator.
     *
     * @param seed the data set's seed
     * @param vocab number of distinct tokens
     * @param seq tokens per sample
     * @param classes number of classes; at most {@code vocab}
     */
    public SyntheticTokens(long seed, int vocab, int seq, int classes) {
        if (classes < 2 || vocab < classes || seq < 1) {
            throw new IllegalArgumentException("need 2 <= classes <= vocab and seq >= 1");
        }
        this.seed = seed;
        this.vocab = vocab;
        this.seq = seq;
        this.classes = classes;
    }

    /**
     * A generator for a model's dimensions.
     *
     * @param seed the data set's seed
     * @param config the model dimensions
     * @return the generator
     */
    public static SyntheticTokens forConfig(long seed, EncoderConfig config) {
        return new SyntheticTokens(seed, config.vocab(), config.seq(), config.classes());
    }

    /**
     * Fills one sample's tokens and returns its label.
     *
     * @param index the global sample index
     * @param tokens receives {@code seq} tokens from {@code offset}
     * @param offset where in {@code tokens} to start
     * @return the label
     */
    public int sample(long index, long[] tokens, int offset) {
        long[] state = {seed ^ (index * SAMPLE_STRIDE)};
        int hidden = (int) Long.remainderUnsigned(next(state), classes);
        int perBucket = vocab / classes;
        int[] counts = new int[classes];
        for (int t = 0; t < seq; t++) {
            long token;
            if (Long.remainderUnsigned(next(state), 2) == 0) {
                token = hidden + (long) classes * Long.remainderUnsigned(next(state), perBucket);
            } else {
                token = Long.remainderUnsigned(next(state), vocab);
            }
            tokens[offset + t] = token;
            counts[(int) (token % classes)]++;
        }
        int label = 0;
        for (int c = 1; c < classes; c++) {
            if (counts[c] > counts[label]) {
                label = c;
            }
        }
        return label;
    }

    /**
     * The batch of the given global sample indices.
     *
     * @param sampleIndices global sample indices, one per row
     * @param manager where the arrays are created
     * @return data: one INT64 array {@code [n, seq]}; labels: one INT64 array {@code [n]} of
     *     class indices (sparse labels for {@code SoftmaxCrossEntropyLoss})
     */
    public Samples batch(long[] sampleIndices, NDManager manager) {
        int n = sampleIndices.length;
        long[] tokens = new long[n * seq];
        long[] labels = new long[n];
        for (int i = 0; i < n; i++) {
            labels[i] = sample(sampleIndices[i], tokens, i * seq);
        }
        return new Samples(new NDList(manager.create(tokens, new Shape(n, seq))),
                new NDList(manager.create(labels, new Shape(n))));
    }

    /**
     * A batch: the model's inputs and the labels.
     *
     * @param data the tokens, {@code [n, seq]}
     * @param labels the class indices, {@code [n]}
     */
    public record Samples(NDList data, NDList labels) implements AutoCloseable {

        /** Closes both lists' arrays. */
        @Override
        public void close() {
            data.close();
            labels.close();
        }
    }

    /**
     * Consecutive indices {@code from, from + 1, ..., from + count - 1}.
     *
     * @param from the first index
     * @param count how many
     * @return the indices
     */
    public static long[] range(long from, int count) {
        long[] indices = new long[count];
        for (int i = 0; i < count; i++) {
            indices[i] = from + i;
        }
        return indices;
    }

    /** SplitMix64. */
    private static long next(long[] state) {
        long z = (state[0] += GOLDEN);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
