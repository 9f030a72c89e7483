package io.reactivecollectives.transport.runtime;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.group.ChunkConflict;
import io.reactivecollectives.transport.group.CollectiveBox;
import io.reactivecollectives.transport.group.ReceiveHooks;
import io.reactivecollectives.transport.mesh.PeerLink;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One collective's view of the group, handed to its algorithm (the {@link Peers} of gloo's
 * algorithm context): sends go out as DATA frames under the collective's sequence number and tag,
 * receives come from the collective's {@link CollectiveBox}. {@link #withTag} makes the view of one
 * sub-operation (a coalesced op's tensor, a stream's chunk).
 */
public final class CollectiveChannel implements Peers {

    private final GroupRuntime runtime;
    private final CollectiveBox box;
    private final OpType opType;
    private final String op;
    private final int tag;
    private final long chunkWord;                   // a stream chunk's dtype bits on its frames (else 0)
    private volatile FlightRecorder.Entry entry;  // set before the body runs; shared by withTag copies
    private final Receipts receipts;                // shared by withTag copies

    CollectiveChannel(GroupRuntime runtime, CollectiveBox box, OpType opType, String op, int tag) {
        this(runtime, box, opType, op, tag, 0, new Receipts());
    }

    private CollectiveChannel(GroupRuntime runtime, CollectiveBox box, OpType opType, String op, int tag,
                              long chunkWord, Receipts receipts) {
        this.runtime = runtime;
        this.box = box;
        this.opType = opType;
        this.op = op;
        this.tag = tag;
        this.chunkWord = chunkWord;
        this.receipts = receipts;
    }

    /** The view of sub-operation {@code t} of the same collective. */
    public CollectiveChannel withTag(int t) {
        CollectiveChannel c = new CollectiveChannel(runtime, box, opType, op, t, chunkWord, receipts);
        c.entry = entry;
        return c;
    }

    /**
     * The view of a stream's chunk {@code index} of {@code dtype}: tagged with the index, its frames
     * carry the dtype, and a frame of this chunk that came with another dtype fails it (here and,
     * through the caller's error, on every rank). End it with {@link #chunkEnds()}.
     *
     * @throws CollectiveMismatchException when a peer's frame of this chunk has another dtype
     */
    public CollectiveChannel forChunk(int index, DType dtype) {
        return forChunkCode(index, dtype.ordinal() + 1);
    }

    /**
     * The view of a stream's end after {@code chunks} chunks: tagged as the chunk after the last,
     * its frames marked {@link io.reactivecollectives.transport.group.CollectiveBox#STREAM_END}, so
     * that it meets a peer's next chunk (a stream of more chunks there) as a mismatch.
     *
     * @throws CollectiveMismatchException when a peer's chunk of that index came already
     */
    public CollectiveChannel forStreamEnd(int chunks) {
        return forChunkCode(chunks, io.reactivecollectives.transport.group.CollectiveBox.STREAM_END);
    }

    private CollectiveChannel forChunkCode(int index, int plusOne) {
        ChunkConflict c = box.chunkStarts(index, plusOne);
        if (c != null) {
            throw Agreement.chunkMismatch(box, runtime.rank(), c);
        }
        CollectiveChannel v = new CollectiveChannel(runtime, box, opType, op, index, plusOne, receipts);
        v.entry = entry;
        return v;
    }

    /** This view's stream chunk ended here (every frame of it arrived): its dtype is forgotten. */
    public void chunkEnds() {
        box.chunkEnds(tag);
    }

    /**
     * This rank only sends in this collective (a root that broadcasts or scatters, a rank that
     * gathers or reduces to another): its frames ask the receivers for a receipt, and the collective
     * completes here only once every rank it sent to has checked the frames' agreement and sent one,
     * so a disagreement a receiver finds fails the collective here too.
     */
    public void requestReceipts() {
        receipts.requested = true;
    }

    /**
     * Completes when every peer this rank sent to under {@link #requestReceipts} acknowledged (at
     * once otherwise); a rank that only sends runs it after its algorithm.
     */
    public Mono<Void> receipts() {
        return Mono.defer(() -> {
            java.util.BitSet to;
            synchronized (receipts) {
                to = receipts.sentTo == null ? null : (java.util.BitSet) receipts.sentTo.clone();
            }
            return !receipts.requested || to == null || to.isEmpty() ? Mono.<Void>empty()
                    : runtime.mailbox().awaitAcks(box, to);
        });
    }

    /** Receipt bookkeeping of one collective (its sub-operations share it). */
    private static final class Receipts {
        volatile boolean requested;
        java.util.BitSet sentTo;   // made by the first send that asks for a receipt (most collectives never do)
    }

    void entry(FlightRecorder.Entry e) {
        this.entry = e;
    }

    CollectiveBox box() {
        return box;
    }

    /** The collective's type. */
    public OpType opType() {
        return opType;
    }

    /** Where the group's ranks run, as the group learnt it while connecting. */
    @Override
    public io.reactivecollectives.transport.algorithms.Topology topology() {
        return runtime.shape().topology();
    }

    /**
     * Names in the flight recorder the algorithm a piece of a stream runs (each chunk decides its
     * own; a collective's one decision is recorded as the collective starts).
     */
    public void recordAlgorithm(String algorithm) {
        FlightRecorder.Entry e = entry;
        if (e != null && algorithm != null) {
            e.algorithm(algorithm);
        }
    }

    @Override
    public int rank() {
        return runtime.rank();
    }

    @Override
    public int size() {
        return runtime.size();
    }

    @Override
    public String op() {
        return op;
    }

    @Override
    public long sequence() {
        return box.sequence();
    }

    @Override
    public int segmentBytes() {
        return runtime.settings().segmentBytes();
    }

    @Override
    public int pipelineDepth() {
        return runtime.settings().pipelineDepth();
    }

    @Override
    public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
        return new DataSend(this, peer, step, chunk, payload, 0, 0, false);
    }

    @Override
    public Mono<Void> sendRange(int peer, int step, int chunk, ByteBuf buf, int index, int length) {
        return new DataSend(this, peer, step, chunk, buf, index, length, true);
    }

    /** Writes {@code payload} (ownership taken) to {@code peer} as a DATA frame; throws, payload released, when it cannot. */
    Future<Void> writeData(int peer, int step, int chunk, ByteBuf payload) {
        return writeData(null, peer, step, chunk, payload);
    }

    /** {@link #writeData(int, int, int, ByteBuf)} through {@code given}, the peer's link as read before (null: read it now). */
    private Future<Void> writeData(PeerLink given, int peer, int step, int chunk, ByteBuf payload) {
        int rank = runtime.rank();
        PeerLink link = given != null ? given : peer == rank ? null : runtime.link(peer);   // the live table: no call through the mesh
        if (link == null) {
            ReferenceCountUtil.safeRelease(payload);
            throw new CollectiveException(op, rank, box.sequence(), peer, "no connection to rank " + peer, null);
        }
        int limit = runtime.settings().maxFramePayload();
        if (payload.readableBytes() > limit) {
            int n = payload.readableBytes();
            ReferenceCountUtil.safeRelease(payload);
            throw new CollectiveException(op, rank, box.sequence(), peer, "payload of " + n
                    + " bytes for rank " + peer + " is over the frame limit " + limit, null);
        }
        runtime.observer().metrics().bytesSent(peer, payload.readableBytes());
        long word = box.word() | chunkWord;
        if (receipts.requested) {
            word |= CollectiveBox.ACK_REQUESTED;
            synchronized (receipts) {
                if (receipts.sentTo == null) {
                    receipts.sentTo = new java.util.BitSet();
                }
                receipts.sentTo.set(peer);
            }
        }
        return link.writeFrame(FrameType.DATA, box.sequence(), tag, step, chunk, word, box.count(), payload);
    }

    /** A failed write's cause as the connection to {@code peer} explains it. */
    Throwable writeFailure(int peer, Throwable cause) {
        PeerLink link = runtime.link(peer);
        return link == null ? cause : link.writeFailure(cause);
    }

    /**
     * The error a send to {@code peer} fails with: a {@link CollectiveException} as is; where this rank
     * has aborted or closed its group, the {@link GroupAbortedException} its other in-flight work fails
     * with (the write failed because of that, not because of the peer; on another thread it can get to
     * the caller before the mailbox's own failure does); else a peer failure.
     */
    Throwable sendFailure(int peer, Throwable e) {
        if (e instanceof CollectiveException) {
            return e;
        }
        GroupAbortedException ended = runtime.endedHere(op, box.sequence());
        if (ended != null) {
            return ended;
        }
        int rank = runtime.rank();
        PeerLink link = runtime.link(peer);
        if (runtime.peerFailures().isDead(peer)) {
            return runtime.peerFailures().failure(op, box.sequence(), peer, e);
        }
        String dead = null;
        if (e instanceof io.reactivecollectives.transport.mesh.PeerClosedException pc && pc.isUnreachable()) {
            dead = e.getMessage();   // no connection could be made on demand: says what was tried
        } else if (e instanceof java.io.IOException || link == null || !link.isActive()) {
            dead = "peer " + peer + " closed the connection (" + e.getMessage() + ")";
        }
        return new PeerFailureException(op, rank, box.sequence(), peer,
                dead != null ? dead : "cannot send to peer " + peer + ": " + e, e);
    }

    @Override
    public Mono<ByteBuf> receive(int peer, int step, int chunk) {
        return receiveScattered(peer, step, chunk).map(CollectiveChannel::contiguous);
    }

    @Override
    public Mono<ByteBuf> receiveScattered(int peer, int step, int chunk) {
        return runtime.mailbox().receive(box, tag, step, chunk, peer, hooks);
    }

    @Override
    public Mono<ByteBuf> receiveLent(int peer, int step, int chunk) {
        return runtime.mailbox().receiveLent(box, tag, step, chunk, peer, hooks);
    }

    /** The flight recorder's "waiting for" and the received-bytes metric, for every receive of this view. */
    private final ReceiveHooks hooks = new ReceiveHooks() {
        @Override
        public void waiting(int source) {
            FlightRecorder.Entry e = entry;
            if (e != null) {
                e.waitingFor(source);
            }
        }

        @Override
        public void received(int source, ByteBuf payload) {
            runtime.observer().metrics().bytesReceived(source, payload.readableBytes());
        }
    };

    @Override
    public CollectiveException protocolError(int peer, String detail) {
        return new CollectiveMismatchException(op, runtime.rank(), box.sequence(), peer, detail);
    }

    /**
     * {@code b} in one memory region: a payload the decoder left as the socket reads it came in
     * (see {@code FrameDecoder}) is copied together, and {@code b} released.
     */
    static ByteBuf contiguous(ByteBuf b) {
        if (b.hasMemoryAddress() || !b.isDirect()) {
            return b;
        }
        try {
            ByteBuf flat = b.alloc().directBuffer(b.readableBytes(), b.readableBytes());
            flat.writeBytes(b, b.readerIndex(), b.readableBytes());
            return flat;
        } finally {
            b.release();
        }
    }

    /**
     * One DATA frame of a {@link CollectiveChannel}: written on subscription, completes when the frame
     * was handed to the socket. A hand-written operator (one object per subscription, the
     * {@link Writer}, which also listens to the write's future) instead of {@code Mono.defer},
     * {@code Mono.create} and {@code onErrorMap}: a send runs for every pipelined segment.
     *
     * <p>The payload is either a byte range of a buffer, sliced (retained) on each subscription
     * ({@code sliced}), or a payload given up front whose one reference the first subscription takes (or
     * that is released when that subscription is cancelled before the write). Nested here, beside the
     * {@code writeData} it calls, so that a send's walk stays in this file.
     */
    private static final class DataSend extends Mono<Void> {

        private final CollectiveChannel channel;
        private final int peer;
        private final int step;
        private final int chunk;
        private final ByteBuf buf;
        private final int index;
        private final int length;
        private final boolean sliced;

        DataSend(CollectiveChannel channel, int peer, int step, int chunk, ByteBuf buf, int index, int length,
                 boolean sliced) {
            this.channel = channel;
            this.peer = peer;
            this.step = step;
            this.chunk = chunk;
            this.buf = buf;
            this.index = index;
            this.length = length;
            this.sliced = sliced;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            Writer w = new Writer(actual, this);
            actual.onSubscribe(w);
            if (w.done != 0) {
                if (!sliced) {
                    ReferenceCountUtil.safeRelease(buf);
                }
                return;
            }
            ByteBuf payload;
            try {
                payload = sliced ? buf.retainedSlice(index, length) : buf;
            } catch (RuntimeException e) {
                w.fail(e);
                return;
            }
            // the link is read once: one closed as idle meanwhile still takes what was routed to it
            PeerLink link = peer == channel.runtime.rank() ? null : channel.runtime.link(peer);
            io.reactivecollectives.transport.mesh.Connections mesh = link == null && peer != channel.runtime.rank() ? channel.runtime.mesh() : null;
            if (mesh != null && mesh.connectsOnDemand()) {   // the first frame to a peer not connected yet
                mesh.linkTo(peer).subscribe(l -> write(w, payload, l), e -> {
                    ReferenceCountUtil.safeRelease(payload);
                    w.fail(channel.sendFailure(peer, e));
                });
                return;
            }
            write(w, payload, link);
        }

        /** Writes {@code payload} (ownership taken) and completes {@code w} when it reached the socket. */
        private void write(Writer w, ByteBuf payload, PeerLink link) {
            if (w.done != 0) {   // cancelled while connecting
                ReferenceCountUtil.safeRelease(payload);
                return;
            }
            Future<Void> f;
            try {
                f = channel.writeData(link, peer, step, chunk, payload);
            } catch (RuntimeException e) {
                w.fail(channel.sendFailure(peer, e));
                return;
            }
            if (f.isDone()) {
                w.operationComplete(f);   // written already (shared memory): no listener to register and notify
            } else {
                f.addListener(w);
            }
        }

        /** The subscription and the write's listener. */
        private static final class Writer implements org.reactivestreams.Subscription, GenericFutureListener<Future<? super Void>> {
            private static final AtomicIntegerFieldUpdater<Writer> DONE = AtomicIntegerFieldUpdater.newUpdater(Writer.class, "done");

            private final CoreSubscriber<? super Void> actual;
            private final DataSend send;
            volatile int done;

            Writer(CoreSubscriber<? super Void> actual, DataSend send) {
                this.actual = actual;
                this.send = send;
            }

            @Override
            public void operationComplete(Future<? super Void> f) {
                if (f.isSuccess()) {
                    if (DONE.compareAndSet(this, 0, 1)) {
                        actual.onComplete();
                    }
                } else {
                    fail(send.channel.sendFailure(send.peer, send.channel.writeFailure(send.peer, f.cause())));
                }
            }

            void fail(Throwable e) {
                if (DONE.compareAndSet(this, 0, 1)) {
                    actual.onError(e);
                }
            }

            @Override
            public void request(long n) {
                // completes without a value: nothing to wait for
            }

            @Override
            public void cancel() {
                DONE.set(this, 1);
            }
        }
    }
}
