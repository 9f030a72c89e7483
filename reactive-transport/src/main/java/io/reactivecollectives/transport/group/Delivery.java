package io.reactivecollectives.transport.group;

/**
 * What became of an inbound DATA frame ({@link Mailbox#deliver}).
 *
 * @param violation a protocol violation (the caller closes the connection), or null
 * @param disagrees the frame disagrees with the running local collective (the caller fails it)
 */
public record Delivery(String violation, boolean disagrees) {
    static final Delivery OK = new Delivery(null, false);
    static final Delivery DISAGREES = new Delivery(null, true);
}
