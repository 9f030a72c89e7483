package io.reactivecollectives.transport.rendezvous;

import io.reactivecollectives.store.wire.FrameMemoryBudget;
import io.reactivecollectives.store.wire.LengthPrefixedDecoder;

/**
 * Splits the store's byte stream into frame bodies ({@code length:int32 body}): the shared
 * {@link LengthPrefixedDecoder} with the store's limits and errors. A length below the header size
 * or above the current limit fails with a {@link StoreProtocolException} before any of the body is
 * buffered; the limit starts at {@link StoreFrameCodec#HANDSHAKE_MAX_FRAME} where authentication is
 * required and is raised once the peer is authenticated ({@link #maxFrameLength(int)}, event-loop
 * only).
 *
 * <p>With a frame timeout (the server's), a frame that has begun to arrive must be complete within
 * it: a peer that sends part of a frame and stalls (a careless or hostile client holding the
 * connection) fails with a {@link StoreProtocolException} once the timeout has passed.
 */
final class StoreFrameDecoder extends LengthPrefixedDecoder {

    static final String NAME = "rc.store.frameDecoder";
    /** How the error of a stalled frame begins. */
    static final String STALLED = "incomplete frame";

    private static final Errors ERRORS = new Errors() {
        @Override
        public RuntimeException badLength(int length, int min, int max) {
            return new StoreProtocolException("frame length " + length + " outside " + min + ".." + max);
        }

        @Override
        public RuntimeException stalled(int buffered, long waitedMillis) {
            return new StoreProtocolException(STALLED + ": " + buffered + " bytes of a frame and nothing more for "
                    + waitedMillis + " ms");
        }
    };

    StoreFrameDecoder(int maxFrameSize) {
        super(StoreFrameCodec.HEADER, maxFrameSize, 0, ERRORS);
    }

    /**
     * A server's decoder: partial frames must be complete within {@code frameTimeoutNanos} and hold
     * memory of the server's {@code budget}.
     */
    StoreFrameDecoder(int maxFrameSize, long frameTimeoutNanos, FrameMemoryBudget budget) {
        super(StoreFrameCodec.HEADER, maxFrameSize, frameTimeoutNanos, budget, ERRORS);
    }
}
