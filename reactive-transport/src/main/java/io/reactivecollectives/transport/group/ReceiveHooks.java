package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;

/**
 * What a {@link Mailbox} receive tells its collective (the flight recorder's "waiting for",
 * the received-bytes metric), without an operator per hook: called on the receive's threads.
 */
public interface ReceiveHooks {

    /** No hooks. */
    ReceiveHooks NONE = new ReceiveHooks() {
    };

    /**
     * A subscriber started waiting for {@code source}.
     *
     * @param source the rank the receive waits for
     */
    default void waiting(int source) {
    }

    /**
     * {@code payload} from {@code source} is about to go downstream.
     *
     * @param source  the rank it came from
     * @param payload the received payload (still owned by the receive)
     */
    default void received(int source, ByteBuf payload) {
    }
}
