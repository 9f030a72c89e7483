package io.reactivecollectives.core;

import java.util.Objects;

/**
 * One send or receive in a batch of point-to-point operations (c10d's {@code P2POp}, issued with
 * {@link ProcessGroup#batchSendRecv}).
 *
 * @param type   send or receive
 * @param tensor what to send, or where to receive
 * @param peer   the other rank
 * @param tag    matches a send with a receive between the same two ranks
 */
public record P2POp(Type type, Tensor tensor, int peer, int tag) {

    /** Direction of a point-to-point operation. */
    public enum Type {
        /** Send the tensor to the peer. */
        SEND,
        /** Receive into the tensor from the peer. */
        RECV
    }

    /**
     * Checks the operation.
     *
     * @param type   send or receive, not null
     * @param tensor what to send, or where to receive, not null
     * @param peer   the other rank
     * @param tag    matches a send with a receive between the same two ranks
     */
    public P2POp {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(tensor, "tensor");
    }

    /**
     * A send.
     *
     * @param tensor what to send
     * @param peer   the destination rank
     * @param tag    the tag the receive matches
     * @return the operation
     */
    public static P2POp send(Tensor tensor, int peer, int tag) {
        return new P2POp(Type.SEND, tensor, peer, tag);
    }

    /**
     * A receive.
     *
     * @param tensor where to receive
     * @param peer   the source rank
     * @param tag    the tag of the send to match
     * @return the operation
     */
    public static P2POp recv(Tensor tensor, int peer, int tag) {
        return new P2POp(Type.RECV, tensor, peer, tag);
    }
}
