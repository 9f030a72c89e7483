package io.reactivecollectives.dashboard;

import io.reactivecollectives.core.observe.FlightRecorderDump;
import io.reactivecollectives.transport.GroupView;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads one rank's {@link RankState} from its {@link GroupView}: at most once per
 * {@link #FRESH_NANOS} (any number of clients polling share one reading, so their cost to the rank is
 * bounded), with rates over the last second or so from the same meters Micrometer publishes.
 */
final class RankStates {

    /** Finished collectives served (the flight recorder holds more; the trace gives them all). */
    static final int FINISHED = 64;
    /** A reading younger than this is served again. */
    static final long FRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RATE_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final GroupView view;
    private final String host;
    private final long pid = ProcessHandle.current().pid();
    private RankState last;
    private long lastNanos;
    /** The meters at the start of the current rate window: total sent, total received, then per peer. */
    private double[] sample;
    private long sampleNanos;
    private double[] rates;

    RankStates(GroupView view, String host) {
        this.view = view;
        this.host = host;
    }

    /** {@return the rank's state now (or as read less than {@link #FRESH_NANOS} ago)} */
    synchronized RankState read() {
        long now = System.nanoTime();
        if (last != null && now - lastNanos < FRESH_NANOS) {
            return last;
        }
        // the sequence counter first: read after the recorder, it could name calls begun since (in no list)
        long startedBefore = view.nextSequence() - 1;
        List<FlightRecorderDump.Entry> entries = view.flightRecorder().entries();
        long startedAfter = view.nextSequence() - 1;
        List<GroupView.Peer> peers = view.peers();
        double[] counts = counts(peers);
        double[] r = rates(counts, now);
        List<RankState.PeerState> peerStates = new ArrayList<>(peers.size());
        for (int i = 0; i < peers.size(); i++) {
            GroupView.Peer p = peers.get(i);
            peerStates.add(new RankState.PeerState(p.rank(), p.transport(), p.alive(), p.death(), p.lastSeqHeard(),
                    p.bytesSent(), p.bytesReceived(), r[2 + 2 * i], r[3 + 2 * i]));
        }
        last = new RankState(view.rank(), true, null, view.groupId(), view.job(), view.size(), view.generation(), host,
                pid, TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()), lastSeq(startedBefore, startedAfter, entries),
                running(entries), finished(entries), counts[0], counts[1], r[0], r[1], peerStates);
        lastNanos = now;
        return last;
    }

    /**
     * The latest collective begun as of the recorder's snapshot: the counter read just before it, or
     * a later one the snapshot holds (begun in between; numbers past the counter read just after it
     * are not the group's collectives' and are left out), so that it is behind no collective the
     * snapshot holds and ahead of none it lacks but was begun before it.
     */
    static long lastSeq(long startedBefore, long startedAfter, List<FlightRecorderDump.Entry> entries) {
        long last = startedBefore;
        for (FlightRecorderDump.Entry e : entries) {
            if (e.seq() <= startedAfter) {
                last = Math.max(last, e.seq());
            }
        }
        return last;
    }

    private List<RankState.Running> running(List<FlightRecorderDump.Entry> entries) {
        List<RankState.Running> out = new ArrayList<>();
        for (GroupView.InFlight f : view.inFlight(entries)) {
            out.add(new RankState.Running(f.op(), f.seq(), f.bytes(), f.algorithm(), f.state(), f.ageNanos() / 1e6,
                    f.timeoutNanos() / 1e6, f.waitingFor()));
        }
        return out;
    }

    private static List<RankState.Finished> finished(List<FlightRecorderDump.Entry> entries) {
        List<RankState.Finished> out = new ArrayList<>();
        for (int i = entries.size() - 1; i >= 0 && out.size() < FINISHED; i--) {
            FlightRecorderDump.Entry e = entries.get(i);
            Long end = e.endedUs();
            if (end == null) {
                continue;
            }
            long start = e.startUs() != null ? e.startUs() : end;
            out.add(new RankState.Finished(e.op(), e.seq(), e.inputBytes(), e.algorithm(), e.state(), start, end,
                    (end - start) / 1e3, e.error()));
        }
        java.util.Collections.reverse(out);
        return out;
    }

    /** Total sent, total received, then sent and received per peer, from the group's per-peer meters. */
    private double[] counts(List<GroupView.Peer> peers) {
        double[] c = new double[2 + 2 * peers.size()];
        for (int i = 0; i < peers.size(); i++) {
            c[2 + 2 * i] = peers.get(i).bytesSent();
            c[3 + 2 * i] = peers.get(i).bytesReceived();
            c[0] += c[2 + 2 * i];
            c[1] += c[3 + 2 * i];
        }
        return c;
    }

    /** Bytes per second over the last complete window of about a second (zeros until there is one). */
    private double[] rates(double[] counts, long now) {
        if (sample == null || sample.length != counts.length) {
            sample = counts;
            sampleNanos = now;
            rates = new double[counts.length];
        } else if (now - sampleNanos >= RATE_WINDOW_NANOS) {
            double seconds = (now - sampleNanos) / 1e9;
            rates = new double[counts.length];
            for (int i = 0; i < counts.length; i++) {
                rates[i] = Math.max(0, counts[i] - sample[i]) / seconds;
            }
            sample = counts;
            sampleNanos = now;
        }
        return rates;
    }
}
