package io.reactivecollectives.transport.group;

/**
 * Sends a receipt (an ACK frame) for a DATA frame that asked for one
 * ({@link Mailbox#deliver(long, int, int, int, int, long, long, io.netty.buffer.ByteBuf, ReceiptSender)}).
 */
@FunctionalInterface
public interface ReceiptSender {
    /**
     * Acknowledges collective {@code seq}'s frame to {@code peer}.
     *
     * @param peer the rank that asked
     * @param seq  the collective
     */
    void acknowledge(int peer, long seq);
}
