package io.reactivecollectives.transport.group;

/**
 * What became of an inbound DATA frame ({@link Mailbox#deliver}).
 *
 * @param violation a protocol violation (the caller closes the connection), or null
 * @param disagrees the frame disagrees with the running local collective (the caller fails it)
 * @param chunk     where the disagreement is a stream chunk's dtype: which, and the two dtypes; else null
 */
public record Delivery(String violation, boolean disagrees, ChunkConflict chunk) {
    static final Delivery OK = new Delivery(null, false, null);
    static final Delivery DISAGREES = new Delivery(null, true, null);

    Delivery(String violation, boolean disagrees) {
        this(violation, disagrees, null);
    }
}
