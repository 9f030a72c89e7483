package io.reactivecollectives.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Names the rank that holds a job back, from the states of all its ranks, long before any timeout:
 * the oldest collective that some ranks have waited in for at least {@link #DEFAULT_MIN_WAIT_MS},
 * then either the ranks that have not started it ({@code rank 3 has not started allReduce seq 4,812;
 * the others waited 1.8 s}) or, when all have, the rank every waiting rank waits for ({@code ranks 0,
 * 1, 2 wait for rank 3 in allReduce seq 4,812 for 1.8 s}: their waits, followed from rank to rank,
 * end there). A rank whose endpoint does not answer is named when the others wait and all that
 * answer have started (a stopped process answers nothing), and when nothing else is: as gone when a
 * rank that answers reports it dead ({@code rank 2 is gone (peer 2 closed the connection, as rank 0
 * reports)}), else with a short reason ({@code rank 2 does not answer the dashboard (connection
 * refused)}).
 *
 * @param banner     the sentence, or null when no rank is behind
 * @param stragglers the ranks it names
 */
public record Stragglers(String banner, List<Integer> stragglers) {

    /** How long ranks must have waited before the one they wait for is named. */
    public static final double DEFAULT_MIN_WAIT_MS = 500;

    private static final Stragglers NONE = new Stragglers(null, List.of());

    /**
     * Reads the ranks' states.
     *
     * @param ranks     every rank's state, reachable or not
     * @param minWaitMs how long a collective must have waited to count
     * @return the stragglers, or none
     */
    public static Stragglers of(List<RankState> ranks, double minWaitMs) {
        Running oldest = oldestWait(ranks, minWaitMs);
        if (oldest != null) {
            List<Integer> notStarted = new ArrayList<>();
            for (RankState r : ranks) {
                if (r.reachable() && r.lastSeq() != null && r.lastSeq() < oldest.seq) {
                    notStarted.add(r.rank());
                }
            }
            if (!notStarted.isEmpty()) {
                return new Stragglers(ranks(notStarted) + (notStarted.size() == 1 ? " has" : " have") + " not started "
                        + oldest.op + " seq " + seq(oldest.seq) + "; the others waited " + seconds(oldest.waitedMs),
                        notStarted);
            }
            Stragglers silent = silent(ranks, "; the others wait in " + oldest.op + " seq " + seq(oldest.seq) + " for "
                    + seconds(oldest.waitedMs));
            if (silent != null) {
                return silent;   // a stopped process (SIGSTOP, a full GC, a hung host) answers nothing
            }
            Stragglers waitedOn = waitedOn(ranks, oldest);
            if (waitedOn != null) {
                return waitedOn;
            }
        }
        Stragglers silent = silent(ranks, "");
        return silent != null ? silent : NONE;
    }

    /**
     * The ranks whose endpoint did not answer, or null when all did: those a rank that answered reports
     * dead are gone ({@code rank 2 is gone (peer 2 closed the connection, as rank 0 reports)}), the
     * others do not answer, with the first one's reason.
     */
    private static Stragglers silent(List<RankState> ranks, String then) {
        List<Integer> gone = new ArrayList<>();
        List<Integer> silent = new ArrayList<>();
        String death = null;
        String why = null;
        for (RankState r : ranks) {
            if (r.reachable()) {
                continue;
            }
            String d = reportedDead(ranks, r.rank());
            if (d != null) {
                gone.add(r.rank());
                death = death == null ? d : death;
            } else {
                silent.add(r.rank());
                why = why == null ? r.error() : why;
            }
        }
        if (gone.isEmpty() && silent.isEmpty()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        if (!gone.isEmpty()) {
            b.append(ranks(gone)).append(gone.size() == 1 ? " is" : " are").append(" gone (").append(death).append(')');
        }
        if (!silent.isEmpty()) {
            b.append(gone.isEmpty() ? "" : "; ").append(ranks(silent)).append(silent.size() == 1 ? " does" : " do")
                    .append(" not answer the dashboard (").append(why).append(')');
        }
        List<Integer> named = new ArrayList<>(gone);
        named.addAll(silent);
        java.util.Collections.sort(named);
        return new Stragglers(b.append(then).toString(), named);
    }

    /** Why the first rank that answered and reports {@code rank} dead says it died, or null when none does. */
    private static String reportedDead(List<RankState> ranks, int rank) {
        for (RankState r : ranks) {
            if (!r.reachable() || r.peers() == null) {
                continue;
            }
            for (RankState.PeerState p : r.peers()) {
                if (p.rank() == rank && !p.alive()) {
                    return (p.death() == null || p.death().isBlank() ? "dead" : p.death()) + ", as rank " + r.rank()
                            + " reports";
                }
            }
        }
        return null;
    }

    /** The collective with the lowest sequence number that some rank has waited in for {@code minWaitMs}. */
    private static Running oldestWait(List<RankState> ranks, double minWaitMs) {
        long latestUs = Long.MIN_VALUE;
        for (RankState r : ranks) {
            latestUs = r.nowUs() != null ? Math.max(latestUs, r.nowUs()) : latestUs;
        }
        Running oldest = null;
        for (RankState r : ranks) {
            // a rank read earlier than the latest (another answered slowly) has waited that much longer since
            double lagMs = r.nowUs() == null ? 0 : Math.max(0, latestUs - r.nowUs()) / 1e3;
            for (RankState.Running f : r.running()) {
                double age = f.ageMs() + lagMs;
                if (f.seq() < 0 || age < minWaitMs) {
                    continue;
                }
                if (oldest == null || f.seq() < oldest.seq) {
                    oldest = new Running(f.seq(), f.op(), age);
                } else if (f.seq() == oldest.seq) {
                    oldest = new Running(f.seq(), f.op(), Math.max(age, oldest.waitedMs));
                }
            }
        }
        return oldest;
    }

    /**
     * The rank that the waits in {@code c} lead to, when they all lead to one: each waiting rank's
     * first awaited peer is followed (a ring's ranks wait for one another in a chain) until a rank that
     * waits for nobody in {@code c}.
     */
    private static Stragglers waitedOn(List<RankState> ranks, Running c) {
        Map<Integer, Integer> next = new TreeMap<>();
        for (RankState r : ranks) {
            for (RankState.Running f : r.running()) {
                if (f.seq() == c.seq && f.waitingFor() != null && !f.waitingFor().isEmpty()) {
                    next.put(r.rank(), f.waitingFor().get(0));
                }
            }
        }
        Integer end = null;
        for (int start : next.keySet()) {
            int at = start;
            for (int hops = 0; next.containsKey(at) && hops <= ranks.size(); hops++) {
                at = next.get(at);
            }
            if (next.containsKey(at) || (end != null && end != at)) {
                return null;   // a cycle (everyone waits: nobody to name) or two culprits
            }
            end = at;
        }
        if (end == null) {
            return null;
        }
        List<Integer> who = new ArrayList<>(new TreeSet<>(next.keySet()));
        return new Stragglers(ranks(who) + (who.size() == 1 ? " waits" : " wait") + " for rank " + end + " in "
                + c.op + " seq " + seq(c.seq) + " for " + seconds(c.waitedMs), List.of(end));
    }

    private static String ranks(List<Integer> r) {
        StringBuilder b = new StringBuilder(r.size() == 1 ? "rank " : "ranks ");
        for (int i = 0; i < r.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(r.get(i));
        }
        return b.toString();
    }

    private static String seq(long seq) {
        return String.format(Locale.ROOT, "%,d", seq);
    }

    private static String seconds(double ms) {
        return String.format(Locale.ROOT, "%.1f s", ms / 1e3);
    }

    private record Running(long seq, String op, double waitedMs) {
    }
}
