package io.reactivecollectives.transport.rendezvous;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;

import java.util.ArrayList;
import java.util.List;

/**
 * The writes of a replicated store as log commands ({@link StoreReplication}): a command is the
 * write's frame body as the client sent it (no second encoding), and applying it gives the response
 * frame the client is owed, id included, which the replica that took the write sends as it is.
 */
final class StoreCommands {

    /** Responses are built on the heap: they leave as bytes, through the log's reply. */
    private static final ByteBufAllocator HEAP = new UnpooledByteBufAllocator(false);

    private StoreCommands() {
    }

    /**
     * Applies {@code command} (a write's frame body, {@link StoreRequests#writes}) to {@code kv},
     * wakes the waiters it completes on this replica, and returns the response frame (empty for a
     * set without reply; an error frame when the state refuses it, the same on every replica).
     */
    static byte[] apply(byte[] command, KeyValueWaiters<StoreRequests.ServerWaiter> kv) {
        StoreFrameCodec.Request r = StoreFrameCodec.decodeRequest(Unpooled.wrappedBuffer(command));
        List<KeyValueWaiters.Fired<StoreRequests.ServerWaiter>> fired = new ArrayList<>(0);
        ByteBuf response;
        try {
            response = StoreRequests.applyWrite(HEAP, kv, r, fired);
        } catch (IllegalArgumentException | IllegalStateException | NullPointerException refused) {
            response = StoreRequests.refusal(HEAP, r, refused);
        }
        StoreRequests.fire(fired);
        if (response == null) {
            return new byte[0];
        }
        try {
            return ByteBufUtil.getBytes(response);
        } finally {
            response.release();
        }
    }
}
