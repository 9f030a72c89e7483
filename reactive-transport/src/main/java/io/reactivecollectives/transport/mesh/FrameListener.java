package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;

/** Receives what the connections of a mesh deliver; called on the connections' event loops. */
public interface FrameListener {

    /** A validated frame (magic, version, type, group and source checked) from {@code peer}; takes ownership. */
    void onFrame(int peer, ByteBuf frame);

    /** The connection to {@code peer} closed; {@code cause} is why, or null for an orderly close by the peer. */
    void onClosed(int peer, Throwable cause);
}
