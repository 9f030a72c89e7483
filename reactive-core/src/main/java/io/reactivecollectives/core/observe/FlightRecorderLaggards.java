package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Finding;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Kind;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.RankView;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.reactivecollectives.core.observe.FlightRecorderAnalyzer.ranks;

/**
 * The analyzer's findings on the lowest sequence number some rank has not completed: who is
 * behind (never started it, or only scheduled it) and who waits for them, or that every rank
 * started it and some are stuck in it; where each waiting rank stood (the peer it waited on, its
 * error); and which ranks failed it.
 */
final class FlightRecorderLaggards {

    private FlightRecorderLaggards() {
    }

    /**
     * Adds the BEHIND finding (ranks that never started or only scheduled {@code seq}, and who waits
     * for them) or the STUCK one (every rank started it), with where each waiting rank stood, and a
     * FAILED finding when ranks recorded errors for it. A rank with no dump that a waiting rank's
     * dump names as the peer it waited on counts as behind ("rank 2 (no dump) never started ... as
     * far as ranks 0, 1 know"), or, when their errors say it closed the connection, left or died, as
     * gone ("rank 2 (no dump) left or died during ... (ranks 0, 1: peer 2 closed the connection)").
     * When every rank started it, one that started it late (a second or more after the first, or after another rank failed it) is behind
     * ("rank 1 started allReduce seq 30398 late: 5.000 s after rank 0, ..."). With fewer dumps than {@code world} ranks and no such rank, the
     * STUCK finding speaks of every rank with a dump, naming them: nothing is known of the others.
     */
    static void find(String group, long seq, int world, Map<Integer, RankView> views, List<Finding> out) {
        List<Integer> notReached = new ArrayList<>();
        List<Integer> scheduled = new ArrayList<>();
        List<Integer> started = new ArrayList<>();
        List<Integer> failed = new ArrayList<>();
        List<Integer> completed = new ArrayList<>();
        FlightRecorderDump.Entry sample = null;
        for (Map.Entry<Integer, RankView> me : views.entrySet()) {
            RankView v = me.getValue();
            switch (v.status(seq)) {
                case NOT_REACHED: notReached.add(me.getKey()); break;
                case SCHEDULED: scheduled.add(me.getKey()); break;
                case STARTED: started.add(me.getKey()); break;
                case FAILED: failed.add(me.getKey()); break;
                default: completed.add(me.getKey()); break;
            }
            if (sample == null) {
                sample = v.bySeq.get(seq);
            }
        }
        String what = Objects.requireNonNull(sample).op() + " seq " + seq;
        List<Integer> waiting = new ArrayList<>(started);
        waiting.addAll(failed);
        waiting.sort(null);

        // ranks with no dump that a waiting rank's dump names: as the peer it waited on, or in its
        // error as a peer that closed the connection, left or died
        TreeMap<Integer, TreeSet<Integer>> waitedOn = new TreeMap<>();
        TreeMap<Integer, TreeMap<String, TreeSet<Integer>>> died = new TreeMap<>();
        for (int r : waiting) {
            FlightRecorderDump.Entry e = views.get(r).bySeq.get(seq);
            Integer peer = e.waitingFor();
            if (peer != null && peer >= 0 && peer < world && !views.containsKey(peer)) {
                waitedOn.computeIfAbsent(peer, p -> new TreeSet<>()).add(r);
            }
            Matcher m = DEATH.matcher(e.error() == null ? "" : e.error());
            while (m.find()) {
                int p = Integer.parseInt(m.group(1));
                if (p >= 0 && p < world && !views.containsKey(p)) {
                    died.computeIfAbsent(p, k -> new TreeMap<>()).computeIfAbsent(m.group(), k -> new TreeSet<>()).add(r);
                }
            }
        }
        TreeSet<Integer> undumped = new TreeSet<>(waitedOn.keySet());
        undumped.addAll(died.keySet());
        TreeSet<Integer> neverStarted = new TreeSet<>(undumped);
        neverStarted.removeAll(died.keySet());
        TreeSet<Integer> tellers = new TreeSet<>();
        neverStarted.forEach(p -> tellers.addAll(waitedOn.get(p)));
        List<Integer> laggards = new ArrayList<>(notReached);
        laggards.addAll(scheduled);
        laggards.addAll(undumped);
        laggards.sort(null);
        StringBuilder sb = new StringBuilder();
        List<Late> late = laggards.isEmpty() ? lateStarters(seq, views) : List.of();
        if (!laggards.isEmpty()) {
            if (!notReached.isEmpty()) {
                sb.append(ranks(notReached)).append(" never started ").append(what);
            }
            if (!neverStarted.isEmpty()) {
                sb.append(sb.length() > 0 ? "; " : "").append(ranks(neverStarted)).append(" (no dump) never started ")
                        .append(what).append(" as far as ").append(ranks(tellers))
                        .append(tellers.size() == 1 ? " knows" : " know");
            }
            died.forEach((p, why) -> {
                sb.append(sb.length() > 0 ? "; " : "").append("rank ").append(p).append(" (no dump) left or died during ")
                        .append(what).append(" (");
                StringJoiner said = new StringJoiner("; ");
                why.forEach((phrase, rs) -> said.add(ranks(rs) + ": " + phrase));
                sb.append(said).append(')');
            });
            if (!scheduled.isEmpty()) {
                sb.append(sb.length() > 0 ? "; " : "").append(ranks(scheduled))
                        .append(scheduled.size() == 1 ? " has" : " have").append(" scheduled ").append(what)
                        .append(" but not started it");
            }
            if (!waiting.isEmpty()) {
                sb.append("; ").append(ranks(waiting)).append(waiting.size() == 1 ? " is" : " are")
                        .append(" waiting for ").append(laggards.size() == 1 ? "it" : "them");
            }
            if (!completed.isEmpty()) {
                sb.append("; ").append(ranks(completed)).append(completed.size() == 1 ? " has" : " have")
                        .append(" completed it");
            }
            for (int r : notReached) {
                RankView v = views.get(r);
                sb.append("\n  rank ").append(r).append(": ");
                if (v.bySeq.isEmpty()) {
                    sb.append("recorded no collective");
                } else {
                    FlightRecorderDump.Entry last = v.bySeq.lastEntry().getValue();
                    sb.append("last recorded ").append(last.op()).append(" seq ").append(last.seq()).append(' ')
                            .append(last.state());
                }
            }
            for (int r : neverStarted) {
                TreeSet<Integer> w = waitedOn.get(r);
                sb.append("\n  rank ").append(r).append(": no dump (a rank that never called the collective, or died,"
                        + " writes none); ").append(ranks(w)).append(w.size() == 1 ? " was" : " were")
                        .append(" waiting for it");
            }
            for (int r : died.keySet()) {
                sb.append("\n  rank ").append(r).append(": no dump (a rank that died writes none)");
            }
            for (int r : scheduled) {
                RankView v = views.get(r);
                sb.append("\n  rank ").append(r).append(": scheduled ")
                        .append(ago(v.dump.dumpedAtUs(), v.bySeq.get(seq).scheduledAtUs()))
                        .append(" before its dump");
            }
            out.add(new Finding(Kind.BEHIND, group, seq, laggards, sb.toString()));
        } else if (!late.isEmpty()) {
            List<Integer> unfinished = new ArrayList<>(waiting);
            List<Integer> lateRanks = new ArrayList<>();
            for (Late l : late) {
                lateRanks.add(l.rank());
                sb.append(sb.length() > 0 ? "; " : "").append("rank ").append(l.rank()).append(" started ").append(what)
                        .append(" late: ").append(secs(l.afterUs())).append(" after rank ").append(l.first());
                if (l.failedRank() != null) {
                    sb.append(", ").append(secs(l.afterFailureUs())).append(" after rank ").append(l.failedRank())
                            .append(" had failed it");
                }
            }
            if (!unfinished.isEmpty()) {
                sb.append("; ").append(ranks(unfinished)).append(unfinished.size() == 1 ? " has" : " have")
                        .append(" not completed it");
            }
            if (!completed.isEmpty()) {
                sb.append(" (").append(ranks(completed)).append(completed.size() == 1 ? " has" : " have").append(")");
            }
            for (Late l : late) {
                FlightRecorderDump.Entry prev = views.get(l.rank()).bySeq.lowerEntry(seq) == null ? null
                        : views.get(l.rank()).bySeq.lowerEntry(seq).getValue();
                if (prev != null && prev.startedAtUs() != null && prev.endedUs() != null) {
                    sb.append("\n  rank ").append(l.rank()).append(": its ").append(prev.op()).append(" seq ")
                            .append(prev.seq()).append(" before it took ").append(secs(prev.endedUs() - prev.startedAtUs()));
                }
            }
            out.add(new Finding(Kind.BEHIND, group, seq, lateRanks, sb.toString()));
        } else {
            List<Integer> unfinished = new ArrayList<>(waiting);
            sb.append(views.size() < world ? "every rank with a dump (" + ranks(new ArrayList<>(views.keySet())) + ")"
                    : "every rank").append(" started ").append(what).append("; ").append(ranks(unfinished))
                    .append(unfinished.size() == 1 ? " has" : " have").append(" not completed it");
            if (!completed.isEmpty()) {
                sb.append(" (").append(ranks(completed)).append(completed.size() == 1 ? " has" : " have")
                        .append(")");
            }
            out.add(new Finding(Kind.STUCK, group, seq, unfinished, sb.toString()));
        }
        // where each waiting rank stood
        Finding head = out.get(out.size() - 1);
        StringBuilder detail = new StringBuilder(head.message());
        for (int r : started) {
            RankView v = views.get(r);
            FlightRecorderDump.Entry e = v.bySeq.get(seq);
            detail.append("\n  rank ").append(r).append(": started ")
                    .append(ago(v.dump.dumpedAtUs(), e.startedAtUs())).append(" before its dump");
            if (e.waitingFor() != null) {
                detail.append(", waiting for rank ").append(e.waitingFor());
                if (e.waitingWhat() != null) {
                    detail.append(" (").append(e.waitingWhat()).append(')');
                }
            }
        }
        for (int r : failed) {
            FlightRecorderDump.Entry e = views.get(r).bySeq.get(seq);
            detail.append("\n  rank ").append(r).append(": failed");
            if (e.waitingFor() != null) {
                detail.append(" while waiting for rank ").append(e.waitingFor());
            }
            if (e.error() != null) {
                detail.append(": ").append(e.error());
            }
        }
        for (Map.Entry<Integer, RankView> me : views.entrySet()) {
            FlightRecorderDump.Entry later = me.getValue().bySeq.tailMap(seq, false).values().stream()
                    .filter(FlightRecorderDump.Entry::failed).findFirst().orElse(null);
            if (later != null && me.getValue().bySeq.containsKey(seq)) {
                detail.append("\n  rank ").append(me.getKey()).append(": then failed ").append(later.op()).append(" seq ")
                        .append(later.seq()).append(later.error() != null ? ": " + later.error() : "");
            }
        }
        out.set(out.size() - 1, new Finding(head.kind(), group, seq, head.ranks(), detail.toString()));
        if (!failed.isEmpty()) {
            FlightRecorderDump.Entry first = views.get(failed.get(0)).bySeq.get(seq);
            out.add(new Finding(Kind.FAILED, group, seq, failed, ranks(failed) + " failed " + what
                    + (first.error() != null ? ": " + first.error() : "")));
        }
    }

    /** How much later than the first rank a rank must start a collective to be named as late. */
    static final long LATE_START_US = 1_000_000;

    /** A peer named in a waiting rank's error as gone: "peer 2 closed the connection". */
    private static final Pattern DEATH =
            Pattern.compile("peer (\\d+) (?:closed the connection|left the group|died|was lost)");

    /**
     * A rank that started a collective late.
     *
     * @param rank           the late rank
     * @param first          the rank that started it first
     * @param afterUs        how long after {@code first} it started
     * @param failedRank     a rank that had failed it before the late rank started, or null
     * @param afterFailureUs how long after that failure it started
     */
    private record Late(int rank, int first, long afterUs, Integer failedRank, long afterFailureUs) {
    }

    /**
     * The ranks that started {@code seq} (every rank did) at least {@link #LATE_START_US} after the
     * first one, or after another rank had already failed it: a rank that was paused or slow before
     * the collective, not the ranks left waiting for it. Start times are wall clocks, of different
     * hosts maybe; the threshold is far above their usual skew.
     */
    private static List<Late> lateStarters(long seq, Map<Integer, RankView> views) {
        Integer first = null;
        long firstUs = Long.MAX_VALUE;
        for (Map.Entry<Integer, RankView> me : views.entrySet()) {
            FlightRecorderDump.Entry e = me.getValue().bySeq.get(seq);
            if (e != null && e.startedAtUs() != null && e.startedAtUs() < firstUs) {
                first = me.getKey();
                firstUs = e.startedAtUs();
            }
        }
        List<Late> late = new ArrayList<>();
        for (Map.Entry<Integer, RankView> me : views.entrySet()) {
            FlightRecorderDump.Entry e = me.getValue().bySeq.get(seq);
            if (first == null || e == null || e.startedAtUs() == null || me.getKey().equals(first)) {
                continue;
            }
            long start = e.startedAtUs();
            Integer failedRank = null;
            long failedUs = Long.MAX_VALUE;
            for (Map.Entry<Integer, RankView> other : views.entrySet()) {
                FlightRecorderDump.Entry o = other.getValue().bySeq.get(seq);
                if (o != null && o.failedAtUs() != null && o.failedAtUs() < start && o.failedAtUs() < failedUs) {
                    failedRank = other.getKey();
                    failedUs = o.failedAtUs();
                }
            }
            if (failedRank != null || start - firstUs >= LATE_START_US) {
                late.add(new Late(me.getKey(), first, start - firstUs, failedRank,
                        failedRank == null ? 0 : start - failedUs));
            }
        }
        return late;
    }

    private static String secs(long us) {
        return String.format(Locale.ROOT, "%.3f s", us / 1e6);
    }

    private static String ago(long nowUs, Long thenUs) {
        if (thenUs == null) {
            return "at an unknown time";
        }
        double s = (nowUs - thenUs) / 1e6;
        return String.format(Locale.ROOT, "%.3f s", s);
    }
}
