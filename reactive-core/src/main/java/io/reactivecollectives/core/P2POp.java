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
    public enum Type { SEND, RECV }

    public P2POp {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(tensor, "tensor");
    }

    public static P2POp send(Tensor tensor, int peer, int tag) {
        return new P2POp(Type.SEND, tensor, peer, tag);
    }

    public static P2POp recv(Tensor tensor, int peer, int tag) {
        return new P2POp(Type.RECV, tensor, peer, tag);
    }
}
