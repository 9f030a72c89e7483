package io.reactivecollectives.core;

import java.util.List;
import java.util.Objects;

/**
 * What an application's state is, so that an elastic group can hand it to a process that joins a
 * running job (a restarted rank, or a new one): for data-parallel training, the parameters and the
 * optimizer's state as tensors, and the step and the sampler's position as metadata.
 *
 * <p>When joiners are admitted, one member that was in the group before streams every tensor of
 * {@link #tensors()}, one after the other, and then the metadata, to every rank; each rank then
 * checks a digest of what it holds against the sender's before any rank takes a step, and a joiner
 * calls {@link #restore(byte[])}. The tensors are written in place, so a joiner's must already have
 * the same dtypes and shapes in the same order (a freshly built model has); {@link #fingerprint()}
 * says so before anything is sent: a joiner whose fingerprint differs from the members' is refused
 * and the group goes on unchanged.
 *
 * <p>Methods are called on the thread that runs the group's boundary, never concurrently with one
 * another; they must not block.
 */
public interface ElasticState {

    /**
     * The identity of this state's layout and build, the same on every process that may join: for
     * instance {@link #layoutOf(List)} of the tensors plus the model's name and version. A joiner
     * with another fingerprint is refused, naming both.
     *
     * @return a short text, at most a few hundred characters
     */
    String fingerprint();

    /**
     * The state's tensors (CPU memory), in an order every process agrees on. On a joiner they are
     * overwritten with a member's values.
     *
     * @return the tensors; the list and the tensors stay owned by the application
     */
    List<Tensor> tensors();

    /**
     * The state that is not a tensor (the step, the epoch, the sampler's position), encoded by the
     * application.
     *
     * @return the bytes, at most a few megabytes
     */
    byte[] metadata();

    /**
     * Called on a rank whose state was replaced (a joiner, or a survivor that was behind after a
     * recovery) once the tensors hold the sender's values and the digests agreed.
     *
     * @param metadata the sending member's {@link #metadata()}
     */
    void restore(byte[] metadata);

    /**
     * A number that grows with every update of the state (for training: the optimizer steps
     * taken). A collective that fails may have completed on some ranks and not on others, so a step
     * can be applied on some survivors only; after a recovery the survivors compare versions and
     * every rank behind takes the state of the lowest rank that holds the highest, so that each step
     * is applied once and the ranks agree. The default, 0 everywhere, skips that comparison's
     * transfer.
     *
     * @return the state's version
     */
    default long version() {
        return 0;
    }

    /**
     * A fingerprint part describing {@code tensors}: each one's dtype and shape, in order, e.g.
     * {@code 3 tensors: float32[784,32] float32[32] float32[32,10]}; long lists are shortened to a
     * count and a checksum of the full description.
     *
     * @param tensors the tensors
     * @return the description
     */
    static String layoutOf(List<Tensor> tensors) {
        Objects.requireNonNull(tensors, "tensors");
        StringBuilder b = new StringBuilder();
        for (Tensor t : tensors) {
            b.append(' ').append(t.dtype().name().toLowerCase(java.util.Locale.ROOT))
                    .append(java.util.Arrays.toString(t.shape()).replace(" ", ""));
        }
        String full = b.toString();
        if (full.length() > 200) {
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(full.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            full = " layout crc32c " + Long.toHexString(crc.getValue());
        }
        return tensors.size() + " tensors:" + full;
    }
}
