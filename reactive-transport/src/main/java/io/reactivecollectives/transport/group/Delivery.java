package io.reactivecollectives.transport.group;

/**
 * What became of an inbound DATA frame ({@link Mailbox#deliver}).
 *
 * @param violation a protocol violation (the caller closes the connection), or null
 * @param disagrees the frame disagrees with the running local collective (the caller fails it)
 * @param ackNow    the frame asks for a receipt the caller sends now
 */
public record Delivery(String violation, boolean disagrees, boolean ackNow) {
    static final Delivery OK = new Delivery(null, false, false);
    static final Delivery ACK = new Delivery(null, false, true);
    static final Delivery DISAGREES = new Delivery(null, true, false);
}
