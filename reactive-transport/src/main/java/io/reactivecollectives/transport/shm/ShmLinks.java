package io.reactivecollectives.transport.shm;

import io.netty.buffer.ByteBufAllocator;

import java.util.Arrays;

/**
 * The shared-memory links of one rank to the other ranks of its group on its host, over one
 * {@link ShmSegment}: an {@link ShmOutbound} per local peer for sending, and one {@link ShmPoller}
 * thread that reads every inbound ring and hands the frames to {@link ShmFrames} (each
 * {@link ShmInbound} straight, with its peer's rank).
 */
public final class ShmLinks {

    private final ShmSegment segment;
    private final int[] locals;
    private final ShmOutbound[] outbounds;
    private final ShmInbound[] inbounds;
    private final ShmPoller poller;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private ShmLinks(ShmSegment segment, int[] locals, int world, int rank, ByteBufAllocator alloc, int minFrame,
                     int maxFrame, long spinNanos, ShmFrames frames, String threadName,
                     java.util.function.IntPredicate linked) {
        this.segment = segment;
        this.locals = locals.clone();
        this.outbounds = new ShmOutbound[world];
        this.inbounds = new ShmInbound[world];
        int self = Arrays.binarySearch(this.locals, rank);
        ShmOutbound[] outs = new ShmOutbound[locals.length];
        ShmInbound[] ins = new ShmInbound[locals.length];
        for (int i = 0; i < locals.length; i++) {
            if (i == self || !linked.test(locals[i])) {
                continue;
            }
            int peer = locals[i];
            outs[i] = outbounds[peer] = new ShmOutbound(segment, self, i);
            ins[i] = inbounds[peer] = new ShmInbound(segment, i, self, alloc, minFrame, maxFrame, peer, frames);
        }
        segment.retain();  // the poller's hold, let go when its thread ends
        this.poller = new ShmPoller(segment, self, ins, outs, spinNanos, threadName);
    }

    /**
     * Starts the links of {@code rank} over {@code segment} (this takes its own hold on the segment).
     *
     * @param segment    the mapped segment
     * @param locals     the group ranks on this host, ascending (index = local rank in the segment)
     * @param world      the group's size
     * @param rank       this rank (one of {@code locals})
     * @param alloc      allocator of inbound frame buffers
     * @param minFrame   the shortest frame length allowed
     * @param maxFrame   the longest frame length allowed
     * @param spinNanos  how long the poller polls after the last traffic before it sleeps
     * @param frames     where inbound frames go
     * @param threadName the poller thread's name
     * @return the running links
     */
    public static ShmLinks start(ShmSegment segment, int[] locals, int world, int rank, ByteBufAllocator alloc,
                                 int minFrame, int maxFrame, long spinNanos, ShmFrames frames, String threadName) {
        ShmLinks links = open(segment, locals, world, rank, alloc, minFrame, maxFrame, spinNanos, frames, threadName);
        links.startPolling();
        return links;
    }

    /**
     * {@link #start} without starting the poller: the outbounds can be handed out (and written to)
     * before anything is read, and {@code frames} be made ready for every peer first.
     *
     * @param segment    the mapped segment
     * @param locals     the group ranks on this host, ascending (index = local rank in the segment)
     * @param world      the group's size
     * @param rank       this rank (one of {@code locals})
     * @param alloc      allocator of inbound frame buffers
     * @param minFrame   the shortest frame length allowed
     * @param maxFrame   the longest frame length allowed
     * @param spinNanos  how long the poller polls after the last traffic before it sleeps
     * @param frames     where inbound frames go
     * @param threadName the poller thread's name
     * @return the links, not yet reading ({@link #startPolling})
     */
    public static ShmLinks open(ShmSegment segment, int[] locals, int world, int rank, ByteBufAllocator alloc,
                                int minFrame, int maxFrame, long spinNanos, ShmFrames frames, String threadName) {
        return open(segment, locals, world, rank, alloc, minFrame, maxFrame, spinNanos, frames, threadName, p -> true);
    }

    /**
     * {@link #open} with rings to the local peers {@code linked} accepts only (a mesh that connects on
     * demand links a few of them through shared memory; the rest keep the Unix sockets they connect
     * over later). Both ends of a pair must agree.
     *
     * @param segment    the mapped segment
     * @param locals     the group ranks on this host, ascending (index = local rank in the segment)
     * @param world      the group's size
     * @param rank       this rank (one of {@code locals})
     * @param alloc      allocator of inbound frame buffers
     * @param minFrame   the shortest frame length allowed
     * @param maxFrame   the longest frame length allowed
     * @param spinNanos  how long the poller polls after the last traffic before it sleeps
     * @param frames     where inbound frames go
     * @param threadName the poller thread's name
     * @param linked     which local peers (by group rank) get shared-memory links
     * @return the links, not yet reading ({@link #startPolling})
     */
    public static ShmLinks open(ShmSegment segment, int[] locals, int world, int rank, ByteBufAllocator alloc,
                                int minFrame, int maxFrame, long spinNanos, ShmFrames frames, String threadName,
                                java.util.function.IntPredicate linked) {
        return new ShmLinks(segment, locals, world, rank, alloc, minFrame, maxFrame, spinNanos, frames, threadName, linked);
    }

    /** Starts the poller of links made by {@link #open}: inbound frames flow from now on. */
    public void startPolling() {
        poller.start();
    }

    /**
     * The sending end to {@code peer}, or null when {@code peer} is not reached through shared memory.
     *
     * @param peer a rank of the group
     * @return its outbound, or null
     */
    public ShmOutbound outbound(int peer) {
        return peer >= 0 && peer < outbounds.length ? outbounds[peer] : null;
    }

    /**
     * Runs {@code then} on the poller thread once everything {@code peer} wrote so far was delivered
     * (its connection closed: what it sent before must arrive before the close is reported).
     *
     * @param peer a local peer
     * @param then what to run after
     */
    public void afterDelivered(int peer, Runnable then) {
        ShmInbound in = inbounds[peer];
        poller.execute(() -> {
            poller.drainFully(in);
            then.run();
        });
    }

    /** Stops reading (back-pressure). */
    public void pause() {
        poller.pause();
    }

    /** Reads again. */
    public void resume() {
        poller.resume();
    }

    /**
     * The ranks on this host, ascending.
     *
     * @return the local ranks
     */
    public int[] locals() {
        return locals.clone();
    }

    /**
     * Stops the poller and fails what is still queued for sending with {@code why}; the segment is
     * unmapped once the poller's thread and every sender let go of it.
     *
     * @param why the cause queued writes fail with
     */
    public void close(Throwable why) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (ShmOutbound out : outbounds) {
            if (out != null) {
                out.fail(why);
            }
        }
        poller.stop();  // its thread lets go of the segment as it ends
    }
}
