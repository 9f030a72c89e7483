package io.reactivecollectives.core;

/**
 * Ranks issued different collectives at the same sequence number, or the same collective with
 * different sizes, dtypes, roots or reduce ops.
 */
public class CollectiveMismatchException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    public CollectiveMismatchException(String op, int rank, long sequence, int peer, String detail) {
        super(op, rank, sequence, peer, detail, null);
    }
}
