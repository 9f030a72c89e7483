package io.reactivecollectives.samples.djl;

import java.util.Locale;

/**
 * The dimensions of a {@link TransformerEncoder}, with two presets.
 *
 * <p>{@link #BASE} has 13,690,378 parameters (vocabulary 8192, sequence 64, width 512, 8 heads,
 * feed-forward 2048, 3 layers, 10 classes); {@link #TINY} has 5,828 and is for tests. The
 * PyTorch mirror ({@code perf/scripts/ddp/torch_ddp_train.py}) takes the same preset names and
 * prints the same count.
 *
 * @param vocab number of distinct tokens (embedding rows)
 * @param seq sequence length (positional embedding rows)
 * @param dModel model width
 * @param heads attention heads; must divide {@code dModel}
 * @param ffn hidden width of the feed-forward sub-layer
 * @param layers number of encoder layers
 * @param classes number of output classes
 */
public record EncoderConfig(int vocab, int seq, int dModel, int heads, int ffn, int layers, int classes) {

    /** The benchmark preset: 13.7M parameters. */
    public static final EncoderConfig BASE = new EncoderConfig(8192, 64, 512, 8, 2048, 3, 10);

    /** The test preset: 5,828 parameters. */
    public static final EncoderConfig TINY = new EncoderConfig(64, 16, 16, 2, 32, 2, 4);

    /**
     * Checks the dimensions.
     *
     * @param vocab number of distinct tokens
     * @param seq sequence length
     * @param dModel model width
     * @param heads attention heads
     * @param ffn feed-forward hidden width
     * @param layers encoder layers
     * @param classes output classes
     * @throws IllegalArgumentException if a dimension is not positive, {@code heads} does not
     *     divide {@code dModel}, or there are fewer tokens than classes
     */
    public EncoderConfig {
        if (vocab <= 0 || seq <= 0 || dModel <= 0 || heads <= 0 || ffn <= 0 || layers <= 0 || classes <= 1) {
            throw new IllegalArgumentException("dimensions must be positive (classes > 1): " + this);
        }
        if (dModel % heads != 0) {
            throw new IllegalArgumentException("heads " + heads + " must divide dModel " + dModel);
        }
        if (vocab < classes) {
            throw new IllegalArgumentException("vocab " + vocab + " must be at least classes " + classes);
        }
    }

    /**
     * Looks a preset up by name.
     *
     * @param name {@code base} or {@code tiny} (any case)
     * @return the preset
     * @throws IllegalArgumentException for any other name
     */
    public static EncoderConfig preset(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "base" -> BASE;
            case "tiny" -> TINY;
            default -> throw new IllegalArgumentException("unknown preset " + name + " (base, tiny)");
        };
    }

    /**
     * The width of one attention head.
     *
     * @return {@code dModel / heads}
     */
    public int headDim() {
        return dModel / heads;
    }

    /**
     * The number of parameters the model has, worked out from the dimensions (the same formula
     * as the PyTorch mirror's {@code sum(p.numel())}).
     *
     * @return the parameter count
     */
    public long parameterCount() {
        long d = dModel;
        long embeddings = (long) vocab * d + (long) seq * d;
        long layerNorm = 2 * d;
        long attention = 4 * (d * d + d);
        long feedForward = d * ffn + ffn + ffn * d + d;
        long perLayer = 2 * layerNorm + attention + feedForward;
        return embeddings + layers * perLayer + layerNorm + d * classes + classes;
    }
}
