package io.reactivecollectives.core;


/**
 * A shrink on the minority side: this rank could count fewer survivors of the generation being left
 * than the {@link Quorum} needs, so it forms no group (it was stopped, or cut off from the others)
 * ({@code shrink rank 0: generation 1 needs 3 of generation 0's 4 ranks (quorum: majority); rank 0
 * could count 1 (rank 0): it forms no group}).
 */
public class QuorumLostException extends PeerFailureException {

    private static final long serialVersionUID = 1L;

    /** The generation this rank could not join. */
    private final int generation;
    /** The members it could count, itself included. */
    private final int counted;
    /** The members the quorum needs. */
    private final int needed;

    /**
     * @param rank       the rank that failed, in the generation being left
     * @param generation the generation it could not join
     * @param counted    the members it could count, itself included
     * @param needed     the members the quorum needs
     * @param detail     the message after {@code shrink rank R: }
     */
    public QuorumLostException(int rank, int generation, int counted, int needed, String detail) {
        super("shrink", rank, -1, CollectiveException.NO_PEER, detail, null);
        this.generation = generation;
        this.counted = counted;
        this.needed = needed;
    }

    /**
     * The generation this rank could not join (the one being left plus one).
     *
     * @return the generation
     */
    public int generation() {
        return generation;
    }

    /**
     * The members this rank could count, itself included.
     *
     * @return the count
     */
    public int counted() {
        return counted;
    }

    /**
     * The members the quorum needs.
     *
     * @return the count
     */
    public int needed() {
        return needed;
    }
}
