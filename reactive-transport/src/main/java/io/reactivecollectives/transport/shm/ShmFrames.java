package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBuf;

/** Where the frames that local peers wrote into shared memory go; called on the poller thread. */
public interface ShmFrames {

    /**
     * A whole frame from {@code peer}, without its length field.
     *
     * @param peer  the sending rank
     * @param frame the frame (ownership passed)
     */
    void onFrame(int peer, ByteBuf frame);

    /**
     * The stream from {@code peer} is corrupt; nothing more will be read from it.
     *
     * @param peer the sending rank
     * @param why  what was wrong
     */
    void onCorrupt(int peer, String why);
}
