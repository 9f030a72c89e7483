package io.reactivecollectives.core.observe;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The layout of a {@link ChromeTrace}: one track (a trace "process") per rank of each group, and on
 * it one slice per recorded entry, on lanes (trace "threads") such that slices of one lane never
 * overlap. A rank's collectives normally follow one another, and then all lie on its first lane; a
 * point-to-point operation running during a collective, or collectives issued without waiting for
 * each other, go to a further lane, since slices of one thread must nest properly and two
 * overlapping operations do not nest.
 *
 * <p>Process ids are {@code rank + 1} (one group) or {@code offset + rank + 1} with the groups in
 * name order, each offset by the world sizes before it: Perfetto treats pid 0 as the kernel's idle
 * process. A track's first lane has the process's own id as thread id (its main thread), further
 * lanes get ids above every process id, so thread ids are unique in the file.
 */
final class ChromeTraceTracks {

    /** The shortest slice: a flow binds to the slice that encloses it, which one of no length cannot. */
    static final long MIN_DURATION_US = 1;

    /**
     * One entry as drawn.
     *
     * @param entry      the recorded collective
     * @param startUs    when it started (else was scheduled), epoch microseconds
     * @param endUs      when it completed or failed, else the dump's time; at least {@link #MIN_DURATION_US} after start
     * @param unfinished whether it had neither completed nor failed at the dump
     * @param tid        the thread id of its lane
     */
    record Slice(FlightRecorderDump.Entry entry, long startUs, long endUs, boolean unfinished, int tid) {
    }

    /**
     * One rank of one group.
     *
     * @param dump   its dump (the latest, when a rank dumped more than once)
     * @param pid    its process id in the trace
     * @param slices its entries that have a time, by start time
     * @param tids   the thread id of each lane, the first one's being {@code pid}
     */
    record Track(FlightRecorderDump dump, int pid, List<Slice> slices, List<Integer> tids) {
    }

    private final List<Track> tracks;
    private final boolean severalGroups;
    private final long baseUs;

    private ChromeTraceTracks(List<Track> tracks, boolean severalGroups, long baseUs) {
        this.tracks = tracks;
        this.severalGroups = severalGroups;
        this.baseUs = baseUs;
    }

    /** The tracks, groups in name order, ranks in order within each. */
    List<Track> tracks() {
        return tracks;
    }

    /** Whether the dumps are of more than one group (then track names say which). */
    boolean severalGroups() {
        return severalGroups;
    }

    /** The earliest time in the dumps, epoch microseconds: the trace's zero. 0 when there is none. */
    long baseUs() {
        return baseUs;
    }

    /** The track's name: {@code rank 3}, or {@code train rank 3} when there are several groups. */
    String name(Track t) {
        return (severalGroups ? t.dump().groupId() + " rank " : "rank ") + t.dump().rank();
    }

    /**
     * Lays out the dumps: one track per (group, rank), the latest dump winning where a rank dumped
     * more than once.
     */
    static ChromeTraceTracks of(Collection<FlightRecorderDump> dumps) {
        Map<String, Map<Integer, FlightRecorderDump>> byGroup = new TreeMap<>();
        for (FlightRecorderDump d : dumps) {
            byGroup.computeIfAbsent(d.groupId(), g -> new TreeMap<>())
                    .merge(d.rank(), d, (a, b) -> b.dumpedAtUs() >= a.dumpedAtUs() ? b : a);
        }
        int pids = 0;
        for (Map<Integer, FlightRecorderDump> ranks : byGroup.values()) {
            pids += width(ranks.values());
        }
        int[] nextTid = {pids + 1};
        long base = Long.MAX_VALUE;
        int offset = 0;
        List<Track> tracks = new ArrayList<>();
        for (Map<Integer, FlightRecorderDump> ranks : byGroup.values()) {
            for (FlightRecorderDump d : ranks.values()) {
                base = Math.min(base, d.dumpedAtUs());
                for (FlightRecorderDump.Entry x : d.entries()) {
                    if (x.startUs() != null) {
                        base = Math.min(base, earliest(x));
                    }
                }
                tracks.add(track(d, offset + d.rank() + 1, nextTid));
            }
            offset += width(ranks.values());
        }
        return new ChromeTraceTracks(tracks, byGroup.size() > 1, base == Long.MAX_VALUE ? 0 : base);
    }

    /** The pids a group takes: its world size, or more if a dump names a rank beyond it. */
    private static int width(Collection<FlightRecorderDump> ranks) {
        int width = 0;
        for (FlightRecorderDump d : ranks) {
            width = Math.max(width, Math.max(d.worldSize(), d.rank() + 1));
        }
        return width;
    }

    /**
     * The rank's slices by start time, each on the first lane whose last slice has ended by then;
     * a new lane takes thread id {@code nextTid[0]++}.
     */
    private static Track track(FlightRecorderDump d, int pid, int[] nextTid) {
        List<FlightRecorderDump.Entry> timed = new ArrayList<>(d.entries().size());
        for (FlightRecorderDump.Entry x : d.entries()) {
            if (x.startUs() != null) {
                timed.add(x);
            }
        }
        timed.sort(Comparator.comparingLong(FlightRecorderDump.Entry::startUs)
                .thenComparingLong(FlightRecorderDump.Entry::id));
        List<Integer> tids = new ArrayList<>();
        tids.add(pid);
        List<Long> laneEnds = new ArrayList<>();
        List<Slice> slices = new ArrayList<>(timed.size());
        for (FlightRecorderDump.Entry x : timed) {
            long start = x.startUs();
            Long ended = x.endedUs();
            boolean unfinished = ended == null;
            long end = Math.max(start + MIN_DURATION_US, unfinished ? d.dumpedAtUs() : ended);
            int lane = 0;
            while (lane < laneEnds.size() && laneEnds.get(lane) > start) {
                lane++;
            }
            if (lane == laneEnds.size()) {
                laneEnds.add(end);
                if (lane > 0) {
                    tids.add(nextTid[0]++);
                }
            } else {
                laneEnds.set(lane, end);
            }
            slices.add(new Slice(x, start, end, unfinished, tids.get(lane)));
        }
        return new Track(d, pid, List.copyOf(slices), List.copyOf(tids));
    }

    private static long earliest(FlightRecorderDump.Entry x) {
        long t = x.startUs();
        for (Long u : new Long[] {x.scheduledAtUs(), x.completedAtUs(), x.failedAtUs()}) {
            if (u != null) {
                t = Math.min(t, u);
            }
        }
        return t;
    }
}
