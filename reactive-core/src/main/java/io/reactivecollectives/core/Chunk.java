package io.reactivecollectives.core;

import java.util.Objects;

/**
 * One piece of a larger tensor, the unit that flows through {@code Flux<Chunk>} pipelines.
 *
 * <p>{@code tensor} is a view (no copy) of elements {@code [elementOffset, elementOffset + tensor.numel())}
 * of the whole; {@code index} is the chunk's position in its stream, starting at 0. A chunk does
 * not own a reference of its own: it lives as long as the tensor it views.
 *
 * @param index         position of the chunk in its stream
 * @param elementOffset offset of the first element in the whole tensor
 * @param tensor        the chunk's elements (a view)
 */
public record Chunk(int index, long elementOffset, Tensor tensor) {

    /**
     * Checks the chunk.
     *
     * @param index         position of the chunk in its stream, at least 0
     * @param elementOffset offset of the first element in the whole tensor, at least 0
     * @param tensor        the chunk's elements, not null
     * @throws IllegalArgumentException for a negative index or offset
     */
    public Chunk {
        if (index < 0) {
            throw new IllegalArgumentException("chunk index must be >= 0, got " + index);
        }
        if (elementOffset < 0) {
            throw new IllegalArgumentException("chunk element offset must be >= 0, got " + elementOffset);
        }
        Objects.requireNonNull(tensor, "tensor");
    }

    /**
     * Number of elements in this chunk.
     *
     * @return the number of elements
     */
    public long numel() {
        return tensor.numel();
    }

    /**
     * Element type of this chunk.
     *
     * @return the element type
     */
    public DType dtype() {
        return tensor.dtype();
    }

    @Override
    public String toString() {
        return "Chunk[" + index + " @" + elementOffset + ", " + tensor + "]";
    }
}
