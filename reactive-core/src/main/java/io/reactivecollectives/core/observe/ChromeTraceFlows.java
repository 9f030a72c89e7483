package io.reactivecollectives.core.observe;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The flows of a {@link ChromeTrace}: for every collective (a group and sequence number) that two
 * or more ranks recorded, one arrow through the ranks' slices in the order they started it, so
 * that the rank that came last (the one the others waited for) is where the arrow ends.
 * Point-to-point operations are not linked, as {@link FlightRecorderAnalyzer} does not match them
 * either; where a rank recorded one sequence number twice, its latest entry is linked.
 */
final class ChromeTraceFlows {

    /** Flow events' phases, in the format's letters: start, step, end. */
    enum Phase {
        /** The first rank to start. */
        START("s"),
        /** A rank between the first and the last. */
        STEP("t"),
        /** The last rank to start. */
        END("f");

        final String letter;

        Phase(String letter) {
            this.letter = letter;
        }
    }

    /**
     * One slice's part in a flow.
     *
     * @param id    the flow's id, unique in the trace
     * @param name  the flow's name, the same on each of its points ({@code allReduce seq 17})
     * @param phase this slice's place in it
     */
    record Point(int id, String name, Phase phase) {
    }

    private final Map<ChromeTraceTracks.Slice, Point> points = new IdentityHashMap<>();
    private int flows;
    private int collectives;

    private ChromeTraceFlows() {
    }

    /** The point a slice carries, or null. */
    Point at(ChromeTraceTracks.Slice s) {
        return points.get(s);
    }

    /** How many flows there are (collectives recorded by two or more ranks). */
    int flows() {
        return flows;
    }

    /** How many collectives (group, sequence number; not point-to-point) the tracks hold. */
    int collectives() {
        return collectives;
    }

    /** Links the slices of each collective across the tracks; ids 1, 2, ... by group, then sequence number. */
    static ChromeTraceFlows of(ChromeTraceTracks tracks) {
        ChromeTraceFlows f = new ChromeTraceFlows();
        Map<String, Map<Long, List<ChromeTraceTracks.Slice>>> byGroup = new TreeMap<>();
        for (ChromeTraceTracks.Track t : tracks.tracks()) {
            Map<Long, ChromeTraceTracks.Slice> latest = new TreeMap<>();
            for (ChromeTraceTracks.Slice s : t.slices()) {
                if (!FlightRecorderAnalyzer.isPointToPoint(s.entry().op())) {
                    latest.merge(s.entry().seq(), s, (a, b) -> b.entry().id() > a.entry().id() ? b : a);
                }
            }
            Map<Long, List<ChromeTraceTracks.Slice>> bySeq =
                    byGroup.computeIfAbsent(t.dump().groupId(), g -> new TreeMap<>());
            latest.forEach((seq, s) -> bySeq.computeIfAbsent(seq, q -> new ArrayList<>(2)).add(s));
        }
        for (Map<Long, List<ChromeTraceTracks.Slice>> bySeq : byGroup.values()) {
            f.collectives += bySeq.size();
            for (List<ChromeTraceTracks.Slice> ranks : bySeq.values()) {
                if (ranks.size() > 1) {
                    f.link(ranks);
                }
            }
        }
        return f;
    }

    private void link(List<ChromeTraceTracks.Slice> ranks) {
        ranks.sort(Comparator.comparingLong(ChromeTraceTracks.Slice::startUs));   // stable: ties in rank order
        int id = ++flows;
        FlightRecorderDump.Entry first = ranks.get(0).entry();
        String name = first.op() + " seq " + first.seq();
        for (int i = 0; i < ranks.size(); i++) {
            Phase p = i == 0 ? Phase.START : i == ranks.size() - 1 ? Phase.END : Phase.STEP;
            points.put(ranks.get(i), new Point(id, name, p));
        }
    }
}
