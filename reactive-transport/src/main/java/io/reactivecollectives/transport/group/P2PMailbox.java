package io.reactivecollectives.transport.group;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ByteCopies;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Matches point-to-point messages (sends split into fragments) with receives: per (source, tag),
 * the n-th message is taken by the n-th receive from that source with that tag, or by a receive
 * from any source with that tag when none from the source waits. Fragments of one message are
 * contiguous on their connection, so a receive consumes them in order and copies each straight
 * into its tensor. Thread-safe.
 */
public final class P2PMailbox {

    /** A receive in progress. */
    private static final class Receive {
        final Tensor tensor;
        final String op;
        final MonoSink<Integer> sink;
        final int anyTag;
        final long openedNanos = System.nanoTime();
        final long timeoutNanos;
        int source = -1;
        int expectedFragments = -1;
        int fragments;
        long offset;
        String error;
        boolean cancelled; // its subscriber cancelled: the rest of a message it began is dropped, not written
        Stream queued;     // the stream whose waiting queue holds it, if one does

        Receive(Tensor tensor, String op, MonoSink<Integer> sink, int anyTag, long timeoutNanos) {
            this.tensor = tensor;
            this.op = op;
            this.sink = sink;
            this.anyTag = anyTag;
            this.timeoutNanos = timeoutNanos;
        }

        P2PStall stall(int from, int tag, long nowNanos) {
            return new P2PStall(op, from, tag, tensor.nbytes(), nowNanos - openedNanos, timeoutNanos);
        }
    }

    /** The message stream of one (source, tag). */
    private static final class Stream {
        final int source;
        final int tag;
        final ArrayDeque<ByteBuf> frames = new ArrayDeque<>(); // whole frames: fragment index/count in them
        final ArrayDeque<Long> stamps = new ArrayDeque<>();    // arrival stamp of each first fragment
        final ArrayDeque<Receive> waiting = new ArrayDeque<>();
        Receive current;

        Stream(int source, int tag) {
            this.source = source;
            this.tag = tag;
        }
    }

    /** Reads fragment fields of a queued frame. */
    public interface FragmentReader {
        int index(ByteBuf frame);

        int count(ByteBuf frame);

        ByteBuf payload(ByteBuf frame); // not retained

        /** The dtype the message says it holds (its first frame), or null when it says none. */
        default io.reactivecollectives.core.DType dtype(ByteBuf frame) {
            return null;
        }
    }

    private final int rank;
    private final FragmentReader reader;
    private final HashMap<Long, Stream> streams = new HashMap<>();
    private final HashMap<Integer, ArrayDeque<Receive>> anyWaiting = new HashMap<>();
    private long stamp;
    private CollectiveException closed;

    public P2PMailbox(int rank, FragmentReader reader) {
        this.rank = rank;
        this.reader = reader;
    }

    private Stream stream(int source, int tag) {
        return streams.computeIfAbsent(((long) source << 32) | (tag & 0xFFFFFFFFL), k -> new Stream(source, tag));
    }

    /**
     * Receives the next message of (source, tag) into {@code tensor}; {@code timeoutNanos} (0:
     * unknown) is what the wait reports give ({@link #stalled}).
     */
    public Mono<Integer> receive(String op, Tensor tensor, int source, int tag, long timeoutNanos) {
        return Mono.create(sink -> {
            List<Runnable> done = new ArrayList<>();
            Receive rcv = new Receive(tensor, op, sink, Integer.MIN_VALUE, timeoutNanos);
            synchronized (this) {
                if (closed != null) {
                    done.add(() -> sink.error(closed));
                } else {
                    Stream s = stream(source, tag);
                    s.waiting.add(rcv);
                    rcv.queued = s;
                    pump(s, done);
                    sink.onCancel(() -> cancel(rcv));
                }
            }
            done.forEach(Runnable::run);
        });
    }

    /**
     * Receives the first message with {@code tag} from whichever source has one first; emits the
     * source. {@code timeoutNanos} as for {@link #receive}.
     */
    public Mono<Integer> receiveAny(String op, Tensor tensor, int tag, long timeoutNanos) {
        return Mono.create(sink -> {
            List<Runnable> done = new ArrayList<>();
            Receive rcv = new Receive(tensor, op, sink, tag, timeoutNanos);
            synchronized (this) {
                if (closed != null) {
                    done.add(() -> sink.error(closed));
                } else {
                    Stream best = null;
                    long bestStamp = Long.MAX_VALUE;
                    for (Stream s : streams.values()) {
                        if (s.tag == tag && s.current == null && s.waiting.isEmpty() && !s.stamps.isEmpty()
                                && s.stamps.peekFirst() < bestStamp) {
                            best = s;
                            bestStamp = s.stamps.peekFirst();
                        }
                    }
                    if (best != null) {
                        best.waiting.add(rcv);
                        rcv.queued = best;
                        pump(best, done);
                    } else {
                        anyWaiting.computeIfAbsent(tag, t -> new ArrayDeque<>()).add(rcv);
                    }
                    sink.onCancel(() -> cancel(rcv));
                }
            }
            done.forEach(Runnable::run);
        });
    }

    /**
     * A receive's subscriber cancelled: a receive still waiting for its message is withdrawn (the
     * message goes to the next receive); one that began a message takes the rest of it, as the
     * fragments of one message belong together, but drops it instead of writing into its tensor,
     * which is the caller's again once the cancel returns.
     */
    private synchronized void cancel(Receive rcv) {
        rcv.cancelled = true;
        if (rcv.queued != null) {   // its own stream only: a mailbox may have seen many (a tag per step)
            rcv.queued.waiting.remove(rcv);
        }
        ArrayDeque<Receive> any = rcv.anyTag == Integer.MIN_VALUE ? null : anyWaiting.get(rcv.anyTag);
        if (any != null) {
            any.remove(rcv);
        }
    }

    /** An inbound P2P frame (whole, length stripped); takes ownership. */
    public void deliver(int source, int tag, ByteBuf frame) {
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            if (closed != null) {
                frame.release();
                return;
            }
            Stream s = stream(source, tag);
            if (reader.index(frame) == 0) {
                s.stamps.add(stamp++);
            }
            s.frames.add(frame);
            if (s.current == null && s.waiting.isEmpty()) {
                ArrayDeque<Receive> any = anyWaiting.get(tag);
                if (any != null && !any.isEmpty()) {
                    Receive r = any.poll();
                    s.waiting.add(r);
                    r.queued = s;
                }
            }
            pump(s, done);
        }
        done.forEach(Runnable::run);
    }

    /** Fails receives waiting on {@code source} (specific ones, and any-source ones when {@code all}). */
    public void failSource(int source, String detail) {
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            for (Stream s : streams.values()) {
                if (s.source == source) {
                    for (Receive r : s.waiting) {
                        done.add(() -> r.sink.error(new PeerFailureException(r.op, rank, -1, source, detail, null)));
                    }
                    s.waiting.clear();
                    if (s.current != null) {
                        Receive r = s.current;
                        done.add(() -> r.sink.error(new PeerFailureException(r.op, rank, -1, source, detail, null)));
                        s.current = null;
                    }
                }
            }
        }
        done.forEach(Runnable::run);
    }

    /** Fails everything waiting and releases queued frames; later receives fail with {@code e}. */
    public void close(CollectiveException e) {
        List<Runnable> done = new ArrayList<>();
        synchronized (this) {
            closed = e;
            for (Stream s : streams.values()) {
                s.frames.forEach(ByteBuf::release);
                s.frames.clear();
                for (Receive r : s.waiting) {
                    done.add(() -> r.sink.error(e));
                }
                if (s.current != null) {
                    Receive r = s.current;
                    done.add(() -> r.sink.error(e));
                }
            }
            streams.clear();
            for (ArrayDeque<Receive> q : anyWaiting.values()) {
                for (Receive r : q) {
                    done.add(() -> r.sink.error(e));
                }
            }
            anyWaiting.clear();
        }
        done.forEach(Runnable::run);
    }

    private void pump(Stream s, List<Runnable> done) {
        while (!s.frames.isEmpty()) {
            if (s.current == null) {
                if (s.waiting.isEmpty()) {
                    return;
                }
                s.current = s.waiting.poll();
                s.current.source = s.source;
                s.stamps.poll();
            }
            Receive r = s.current;
            ByteBuf frame = s.frames.poll();
            try {
                int index = reader.index(frame);
                int count = reader.count(frame);
                ByteBuf payload = reader.payload(frame);
                if (r.expectedFragments < 0) {
                    r.expectedFragments = count;
                    io.reactivecollectives.core.DType sent = reader.dtype(frame);
                    if (sent != null && sent != r.tensor.dtype()) {   // the same bytes would be read as another type
                        r.error = "message from rank " + s.source + " with tag " + s.tag + " holds " + sent.toString()
                                .toLowerCase(java.util.Locale.ROOT) + ", the receive tensor is " + r.tensor.dtype()
                                .toString().toLowerCase(java.util.Locale.ROOT);
                    }
                }
                if (index != r.fragments || count != r.expectedFragments) {
                    r.error = "fragment " + index + "/" + count + " out of order (expected " + r.fragments + "/"
                            + r.expectedFragments + ")";
                }
                long nbytes = r.tensor.nbytes();
                if (r.error == null && !r.cancelled) {
                    if (r.offset + payload.readableBytes() > nbytes) {
                        r.error = "message from rank " + s.source + " with tag " + s.tag + " is larger than the "
                                + nbytes + "-byte receive tensor";
                    } else {
                        try {
                            ByteCopies.copy(payload, payload.readerIndex(), r.tensor.buffer(), (int) r.offset, payload.readableBytes());
                        } catch (RuntimeException e) {
                            r.error = "cannot write into the receive tensor: " + e;
                        }
                    }
                }
                r.offset += payload.readableBytes();
                r.fragments++;
            } finally {
                frame.release();
            }
            if (r.fragments >= r.expectedFragments) {
                s.current = null;
                if (r.error == null && r.offset != r.tensor.nbytes()) {
                    r.error = "message from rank " + s.source + " with tag " + s.tag + " has " + r.offset
                            + " bytes, the receive tensor " + r.tensor.nbytes();
                }
                String err = r.error;
                int src = s.source;
                if (err == null) {
                    done.add(() -> r.sink.success(src));
                } else {
                    done.add(() -> r.sink.error(new CollectiveException(r.op, rank, -1, src, err, null)));
                }
            }
        }
    }

    /**
     * The receives waiting (for a message, or for the rest of one) for {@code minNanos} or more,
     * oldest first, for the wait reports.
     *
     * @param minNanos how long a receive must have waited
     * @param nowNanos now ({@link System#nanoTime()})
     * @return the receives, oldest first
     */
    public synchronized List<P2PStall> stalled(long minNanos, long nowNanos) {
        List<P2PStall> out = new ArrayList<>();
        for (Stream s : streams.values()) {
            if (s.current != null && nowNanos - s.current.openedNanos >= minNanos) {
                out.add(s.current.stall(s.source, s.tag, nowNanos));
            }
            for (Receive r : s.waiting) {
                if (nowNanos - r.openedNanos >= minNanos) {
                    out.add(r.stall(s.source, s.tag, nowNanos));
                }
            }
        }
        for (Map.Entry<Integer, ArrayDeque<Receive>> e : anyWaiting.entrySet()) {
            for (Receive r : e.getValue()) {
                if (nowNanos - r.openedNanos >= minNanos) {
                    out.add(r.stall(-1, e.getKey(), nowNanos));
                }
            }
        }
        out.sort((x, y) -> Long.compare(y.runningNanos(), x.runningNanos()));
        return out;
    }

    /** Queued frames (for tests). */
    public synchronized int queuedFrames() {
        int n = 0;
        for (Iterator<Map.Entry<Long, Stream>> it = streams.entrySet().iterator(); it.hasNext(); ) {
            n += it.next().getValue().frames.size();
        }
        return n;
    }
}
