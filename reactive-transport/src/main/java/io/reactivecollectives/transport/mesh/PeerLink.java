package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.Future;
import io.reactivecollectives.transport.frame.FrameType;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * What a link to one peer must do, whatever carries it: send a frame, lend a receive, close with a
 * cause. The mesh holds one per peer ({@link Mesh#link}); two kinds stand side by side, each with
 * its own checks of what it receives:
 * <ul>
 *   <li>{@link SocketLink}: Netty channels (TCP or a Unix domain socket, one or several stripes),
 *   read by {@link FrameHandler};</li>
 *   <li>{@link SharedMemoryLink}: a ring in the host's shared memory for writes, read by the
 *   rank's poller and checked by {@link SharedMemoryFrames}; the peer's socket link stays open
 *   underneath for liveness, the end of the connection and the graceful close.</li>
 * </ul>
 * Switching a peer to shared memory replaces its link in the mesh ({@link MeshSharedMemory}).
 *
 * <p><b>Sending.</b> Every send takes ownership of its payload: it is released once written, or on
 * failure, also when the call throws. Frames to one peer keep the order in which they were written
 * (DATA frames of different chunks may travel on different stripes, see {@link SocketLink}).
 *
 * <p><b>Lending a receive.</b> Each frame from the peer that passed the link's checks goes to
 * {@link #listener()} exactly as the socket decodes it: the header (see
 * {@link io.reactivecollectives.transport.frame.FrameCodec}'s accessors) followed by the payload, in
 * one buffer lent to the receiver, which must release it or retain it (what it retains from a
 * shared-memory frame holds the ring until released). The end of the link is heard there once too
 * ({@link FrameListener#onClosed}), after the frames the peer sent before it.
 */
public interface PeerLink {

    /**
     * The peer's rank.
     *
     * @return the rank at the other end
     */
    int peer();

    /**
     * How the link carries frames: {@code "tcp"}, {@code "unix"} (a Unix domain socket) or
     * {@code "shm"} (shared memory), as {@link Mesh#transportTo} reports it.
     *
     * @return the transport's name
     */
    String transport();

    /**
     * Whether the link is open (every connection of it).
     *
     * @return true while frames can be sent
     */
    boolean isActive();

    /**
     * Where this link delivers the frames it receives from the peer, and its end (see the lending
     * contract above); the same listener for every link of a mesh.
     *
     * @return the listener
     */
    FrameListener listener();

    /**
     * Writes one frame with {@code payload} (ownership taken) and returns the write's future, for a
     * caller that listens itself instead of subscribing to {@link #send}; the future's cause goes
     * through {@link #writeFailure} for the error to report. A future done on return (shared memory,
     * most often) needs no listener.
     *
     * @param type           the frame type
     * @param seq            the collective's sequence number
     * @param tag            the sub-operation
     * @param step           the algorithm's step
     * @param chunk          the piece of the step
     * @param agreementWord  the header's agreement word
     * @param agreementCount the header's agreement count
     * @param payload        the payload, released once written or on failure
     * @return the write's future
     * @throws RuntimeException when the frame cannot be written at all ({@code payload} released)
     */
    Future<Void> writeFrame(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                            long agreementCount, ByteBuf payload);

    /**
     * {@link #writeFrame} with {@code group} as the header's group id instead of the link's own: how a
     * subgroup carried over this link's mesh writes its frames ({@link CarriedGroup}).
     *
     * @param group          the group id written in the header
     * @param type           the frame type
     * @param seq            the collective's sequence number
     * @param tag            the sub-operation
     * @param step           the algorithm's step
     * @param chunk          the piece of the step
     * @param agreementWord  the header's agreement word
     * @param agreementCount the header's agreement count
     * @param payload        the payload, released once written or on failure
     * @return the write's future
     */
    Future<Void> writeFrameAs(int group, FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                              long agreementCount, ByteBuf payload);

    /**
     * {@link #sendFragments} with {@code group} as the headers' group id (a carried subgroup's).
     *
     * @param group     the group id written in each header
     * @param tag       the message's tag
     * @param kind      what the message holds, in each header's agreement word (the sent tensor's
     *                  dtype, {@link io.reactivecollectives.transport.frame.P2PFrameCodec#kindOf}); 0: unsaid
     * @param fragments the fragments' payloads, ownership taken
     * @return completes when written
     */
    Mono<Void> sendFragmentsAs(int group, int tag, long kind, ByteBuf[] fragments);

    /**
     * Why a write failed, as {@link #send} reports it: the cause this link was closed for when this
     * side closed it, a {@link PeerClosedException} for a connection the peer closed or reset, else
     * {@code error} itself.
     *
     * @param error the write future's cause
     * @return the error to report
     */
    Throwable writeFailure(Throwable error);

    /**
     * Writes a message as consecutive point-to-point fragment frames, together (nothing of another
     * frame between them). Completes when the last was written.
     *
     * @param tag       the message's tag
     * @param kind      what the message holds ({@link #sendFragmentsAs}); 0: unsaid
     * @param fragments the fragments' payloads, ownership taken
     * @return completes when written, errors with {@link #writeFailure}'s error
     */
    Mono<Void> sendFragments(int tag, long kind, ByteBuf[] fragments);

    /**
     * Closes the link from this side for {@code why} (any thread): the listener hears {@code why}
     * before the close fails the sends still pending, which then report it too.
     *
     * @param why the cause
     */
    void closeWith(Throwable why);

    /**
     * Ends the link from this side after everything written to it: the listener hears of the end
     * now, and the connection closes once the peer closed it in turn (no reset cuts what the peer
     * has not read yet).
     *
     * @return completes once the peer closed its end
     */
    Mono<Void> endGracefully();

    /**
     * Writes one frame with {@code payload} (ownership taken) and no agreement fields.
     *
     * @param type    the frame type
     * @param seq     the sequence number
     * @param tag     the tag
     * @param step    the step
     * @param chunk   the chunk
     * @param payload the payload, released once written or on failure
     * @return completes when written, errors with {@link #writeFailure}'s error
     */
    default Mono<Void> send(FrameType type, long seq, int tag, int step, int chunk, ByteBuf payload) {
        return send(type, seq, tag, step, chunk, 0L, 0L, payload);
    }

    /**
     * Writes one frame with {@code payload} (ownership taken): {@link #writeFrame} as a {@code Mono}.
     *
     * @param type           the frame type
     * @param seq            the sequence number
     * @param tag            the tag
     * @param step           the step
     * @param chunk          the chunk
     * @param agreementWord  the header's agreement word
     * @param agreementCount the header's agreement count
     * @param payload        the payload, released once written or on failure
     * @return completes when written, errors with {@link #writeFailure}'s error
     */
    default Mono<Void> send(FrameType type, long seq, int tag, int step, int chunk, long agreementWord,
                            long agreementCount, ByteBuf payload) {
        return Mono.create(sink -> {
            Future<Void> written;
            try {
                written = writeFrame(type, seq, tag, step, chunk, agreementWord, agreementCount, payload);
            } catch (Throwable t) {
                sink.error(t);
                return;
            }
            settleWhenDone(written, sink);
        });
    }

    /**
     * Writes one frame without waiting for it (abort notices); ownership of {@code payload} taken.
     * A link that is gone drops it: the peer learns of the failure from that.
     *
     * @param type    the frame type
     * @param seq     the sequence number
     * @param tag     the tag
     * @param step    the step
     * @param chunk   the chunk
     * @param payload the payload
     */
    default void sendAndForget(FrameType type, long seq, int tag, int step, int chunk, ByteBuf payload) {
        try {
            writeFrame(type, seq, tag, step, chunk, 0L, 0L, payload);
        } catch (Throwable ignored) {
            // the connection is gone; the peer learns of the failure from that
        }
    }

    /**
     * Completes {@code sink} with {@code written}'s outcome, at once when it is done already (no
     * listener to register and run), else when it completes.
     *
     * @param written a write's future
     * @param sink    what hears of it, with {@link #writeFailure}'s error
     */
    default void settleWhenDone(Future<?> written, MonoSink<Void> sink) {
        if (written.isDone()) {
            settle(written, sink);
        } else {
            written.addListener(f -> settle(written, sink));
        }
    }

    private void settle(Future<?> written, MonoSink<Void> sink) {
        if (written.isSuccess()) {
            sink.success();
        } else {
            sink.error(writeFailure(written.cause()));
        }
    }
}
