package io.reactivecollectives.transport.group;

/**
 * A frame that disagrees with the local collective: who sent it and what it said.
 *
 * @param source the sending rank
 * @param word   its agreement word (op, dtype, reduce op, root)
 * @param count  its element count
 */
public record Disagreement(int source, long word, long count) {
}
