package io.reactivecollectives.transport.frame;

/** The kinds of frame exchanged between ranks of a group, with their wire codes. */
public enum FrameType {
    /** First frame of a connection, from the connecting rank: group, rank, world size, optional HMAC. */
    HELLO(1),
    /** The accepting rank's answer to {@link #HELLO}. */
    HELLO_ACK(2),
    /** A piece of a collective's data: (sequence, tag, step, chunk) from the source rank. */
    DATA(3),
    /**
     * The collective with this sequence number failed or was cancelled on the source rank; payload:
     * UTF-8 reason. The tag says why: 0 failed or cancelled, 1 a peer failed (step: that peer),
     * 2 timed out (step: the peer the source waited for + 1, or 0).
     */
    ABORT(4),
    /** A fragment of a point-to-point message: tag, fragment index (chunk) and fragment count (step). */
    P2P(5),
    /** Liveness: sent on every connection each heartbeat interval; no payload, never delivered to a collective. */
    HEARTBEAT(6),
    /**
     * The source rank aborted the whole group ({@code ProcessGroup.abort()}); payload: UTF-8 reason.
     * The receiver fails every in-flight and later collective that involves the source.
     */
    GROUP_ABORT(7),
    /**
     * Receipt of a collective's data: the sender (a rank that only sends in this collective) waits
     * for it, so that it learns of a disagreement the receiver found before it completes.
     * Sequence: the collective's; no payload.
     */
    ACK(8),
    /**
     * The sender leaves the group in order ({@code close()}): it finished every collective below
     * the frame's sequence number, so peers still running one of those are not failed by its
     * departure. No payload.
     */
    GOODBYE(9),
    /**
     * The sender watches the heartbeats of the peer its step names (a heartbeat ring, where not every
     * rank watches every other) and found it silent; payload: UTF-8 finding. The receiver closes its
     * own connection to that peer with the finding as the cause, as if it had found the silence itself.
     */
    PEER_SILENT(10),
    /**
     * The sender closes this connection quietly because it sat idle (a mesh that connects on demand,
     * over its limit of such connections): step 0 asks, step 1 agrees. Handled by the link, never
     * passed on: neither side takes the end for a failure, and the next frame between the two ranks
     * goes over a new connection. No payload.
     */
    RETIRE(11);

    private final int code;

    FrameType(int code) {
        this.code = code;
    }

    /** The byte that stands for this type on the wire. */
    public int code() {
        return code;
    }

    private static final FrameType[] BY_CODE = new FrameType[12];

    static {
        for (FrameType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    /** The type of a wire code, or {@code null} for an unknown code. */
    public static FrameType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
