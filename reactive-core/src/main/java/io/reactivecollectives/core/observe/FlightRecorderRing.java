package io.reactivecollectives.core.observe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The storage of a {@link FlightRecorder}: a lock-free ring of its last {@code capacity} entries (an
 * atomic index and an {@link AtomicReferenceArray}), the ids handed to new entries, and the clock
 * that turns an entry's {@link System#nanoTime()} stamps into the epoch microseconds of a dump.
 */
final class FlightRecorderRing {

    private final AtomicReferenceArray<FlightRecorder.Entry> ring;
    private final AtomicLong nextId = new AtomicLong();
    private final long epochBaseNanos;
    private final long monoBaseNanos;

    FlightRecorderRing(int capacity) {
        this.ring = new AtomicReferenceArray<>(capacity);
        this.epochBaseNanos = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
        this.monoBaseNanos = System.nanoTime();
    }

    /** The slots an entry can take: the recorder's capacity. */
    int capacity() {
        return ring.length();
    }

    /** How many entries were handed an id in all. */
    long recorded() {
        return nextId.get();
    }

    /** The id of the next entry (0, 1, 2, ...). */
    long nextId() {
        return nextId.getAndIncrement();
    }

    /** Stores {@code e} in its slot, overwriting the entry {@code capacity} ids older. */
    void put(FlightRecorder.Entry e) {
        ring.set((int) (e.id % ring.length()), e);
    }

    /** The newest entry with sequence number {@code seq}, or null. */
    FlightRecorder.Entry find(long seq) {
        FlightRecorder.Entry best = null;
        for (int i = 0; i < ring.length(); i++) {
            FlightRecorder.Entry e = ring.get(i);
            if (e != null && e.seq == seq && (best == null || e.id > best.id)) {
                best = e;
            }
        }
        return best;
    }

    /** The entries in the buffer now, in no order (nulls for empty slots). */
    FlightRecorder.Entry[] slots() {
        FlightRecorder.Entry[] out = new FlightRecorder.Entry[ring.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ring.get(i);
        }
        return out;
    }

    /** The retained entries, oldest first, as the immutable records of a dump. */
    List<FlightRecorderDump.Entry> records() {
        List<FlightRecorder.Entry> live = new ArrayList<>(ring.length());
        for (int i = 0; i < ring.length(); i++) {
            FlightRecorder.Entry e = ring.get(i);
            if (e != null) {
                live.add(e);
            }
        }
        live.sort(Comparator.comparingLong(e -> e.id));
        List<FlightRecorderDump.Entry> out = new ArrayList<>(live.size());
        for (FlightRecorder.Entry e : live) {
            out.add(toRecord(e));
        }
        return out;
    }

    /** {@code monoNanos} (a {@link System#nanoTime()} value) as microseconds since the epoch. */
    long toEpochMicros(long monoNanos) {
        return TimeUnit.NANOSECONDS.toMicros(epochBaseNanos + (monoNanos - monoBaseNanos));
    }

    /** A consistent-enough copy of {@code e}: each field read once, times on the epoch clock. */
    private FlightRecorderDump.Entry toRecord(FlightRecorder.Entry e) {
        FlightRecorder.State s = e.state;
        long started = e.startedNanos;
        long ended = e.endedNanos;
        int peer = e.waitingFor;
        long inBytes = FlightRecorderDumps.bytes(e.inputShapes, e.dtype);
        long outBytes = FlightRecorderDumps.bytes(e.outputShapes, e.dtype);
        return new FlightRecorderDump.Entry(e.id, e.seq, e.op.displayName(),
                e.dtype == null ? null : e.dtype.torchName(),
                FlightRecorderDumps.shapes(e.inputShapes), FlightRecorderDumps.shapes(e.outputShapes),
                inBytes, outBytes, e.algorithm, s.name(),
                toEpochMicros(e.scheduledNanos),
                started != 0 ? toEpochMicros(started) : null,
                s == FlightRecorder.State.COMPLETED && ended != 0 ? toEpochMicros(ended) : null,
                s == FlightRecorder.State.FAILED && ended != 0 ? toEpochMicros(ended) : null,
                peer >= 0 ? peer : null, peer >= 0 ? e.waitingWhat : null,
                s == FlightRecorder.State.FAILED ? e.error : null);
    }
}
