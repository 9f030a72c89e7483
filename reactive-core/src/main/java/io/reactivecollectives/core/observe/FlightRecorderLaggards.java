package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Finding;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.Kind;
import io.reactivecollectives.core.observe.FlightRecorderAnalyzer.RankView;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

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
     * far as ranks 0, 1 know"). With fewer dumps than {@code world} ranks and no such rank, the
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

        // ranks with no dump that a waiting rank's dump says it was waiting for
        TreeSet<Integer> undumped = new TreeSet<>();
        TreeSet<Integer> tellers = new TreeSet<>();
        for (int r : waiting) {
            Integer peer = views.get(r).bySeq.get(seq).waitingFor();
            if (peer != null && peer >= 0 && peer < world && !views.containsKey(peer)) {
                undumped.add(peer);
                tellers.add(r);
            }
        }
        List<Integer> laggards = new ArrayList<>(notReached);
        laggards.addAll(scheduled);
        laggards.addAll(undumped);
        laggards.sort(null);
        StringBuilder sb = new StringBuilder();
        if (!laggards.isEmpty()) {
            if (!notReached.isEmpty()) {
                sb.append(ranks(notReached)).append(" never started ").append(what);
            }
            if (!undumped.isEmpty()) {
                sb.append(sb.length() > 0 ? "; " : "").append(ranks(undumped)).append(" (no dump) never started ")
                        .append(what).append(" as far as ").append(ranks(tellers))
                        .append(tellers.size() == 1 ? " knows" : " know");
            }
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
            for (int r : undumped) {
                sb.append("\n  rank ").append(r).append(": no dump (a rank that never called the collective, or died,"
                        + " writes none); ").append(ranks(tellers)).append(tellers.size() == 1 ? " was" : " were")
                        .append(" waiting for it");
            }
            for (int r : scheduled) {
                RankView v = views.get(r);
                sb.append("\n  rank ").append(r).append(": scheduled ")
                        .append(ago(v.dump.dumpedAtUs(), v.bySeq.get(seq).scheduledAtUs()))
                        .append(" before its dump");
            }
            out.add(new Finding(Kind.BEHIND, group, seq, laggards, sb.toString()));
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
        out.set(out.size() - 1, new Finding(head.kind(), group, seq, head.ranks(), detail.toString()));
        if (!failed.isEmpty()) {
            FlightRecorderDump.Entry first = views.get(failed.get(0)).bySeq.get(seq);
            out.add(new Finding(Kind.FAILED, group, seq, failed, ranks(failed) + " failed " + what
                    + (first.error() != null ? ": " + first.error() : "")));
        }
    }

    private static String ago(long nowUs, Long thenUs) {
        if (thenUs == null) {
            return "at an unknown time";
        }
        double s = (nowUs - thenUs) / 1e6;
        return String.format(Locale.ROOT, "%.3f s", s);
    }
}
