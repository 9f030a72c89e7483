package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.OpType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The analyzer's mismatch finding: ranks that ran the same sequence number as different
 * collectives (op, dtype, or the shapes that must agree for the op), blaming the minority.
 */
final class FlightRecorderMismatches {

    private FlightRecorderMismatches() {
    }

    /** Adds a MISMATCH finding when the ranks that ran {@code seq} disagree on op, dtype or shapes. */
    static void find(String group, long seq, Map<Integer, FlightRecorderAnalyzer.RankView> views,
                     List<FlightRecorderAnalyzer.Finding> out) {
        Map<String, List<Integer>> bySignature = new LinkedHashMap<>();
        Map<String, FlightRecorderDump.Entry> sampleOf = new LinkedHashMap<>();
        for (Map.Entry<Integer, FlightRecorderAnalyzer.RankView> me : views.entrySet()) {
            FlightRecorderDump.Entry e = me.getValue().bySeq.get(seq);
            if (e == null) {
                continue;
            }
            String sig = signature(e);
            bySignature.computeIfAbsent(sig, k -> new ArrayList<>()).add(me.getKey());
            sampleOf.putIfAbsent(sig, e);
        }
        if (bySignature.size() < 2) {
            return;
        }
        List<FlightRecorderDump.Entry> samples = new ArrayList<>(sampleOf.values());
        FlightRecorderDump.Entry a = samples.get(0);
        Set<String> differs = new java.util.LinkedHashSet<>();
        for (FlightRecorderDump.Entry b : samples.subList(1, samples.size())) {
            if (!a.op().equals(b.op())) {
                differs.add("op");
            }
            if (!Objects.equals(a.dtype(), b.dtype())) {
                differs.add("dtype");
            }
            if (a.op().equals(b.op()) && !Objects.equals(checkedShapes(a), checkedShapes(b))) {
                differs.add(OpType.SCATTER.displayName().equals(a.op()) ? "output shapes" : "input shapes");
            }
        }
        List<String> parts = new ArrayList<>();
        List<Integer> all = new ArrayList<>();
        bySignature.forEach((sig, rs) -> {
            parts.add(FlightRecorderAnalyzer.ranks(rs) + " ran " + sig);
            all.addAll(rs);
        });
        all.sort(null);
        // blame the minority: the ranks outside the largest signature group
        List<Integer> largest = bySignature.values().stream().max(Comparator.comparingInt(List::size)).orElseThrow();
        List<Integer> blamed = all.stream().filter(r -> !largest.contains(r)).collect(Collectors.toList());
        out.add(new FlightRecorderAnalyzer.Finding(FlightRecorderAnalyzer.Kind.MISMATCH, group, seq, blamed, "mismatch at seq " + seq + " ("
                + String.join(", ", differs) + " differ): " + String.join("; ", parts)));
    }

    private static String signature(FlightRecorderDump.Entry e) {
        StringBuilder sb = new StringBuilder(e.op());
        if (e.dtype() != null) {
            sb.append(' ').append(e.dtype());
        }
        List<List<Long>> shapes = checkedShapes(e);
        if (shapes != null) {
            sb.append(' ').append(shapes);
        }
        return sb.toString();
    }

    /** The shapes that must agree across ranks for this op, or null where they may differ. */
    private static List<List<Long>> checkedShapes(FlightRecorderDump.Entry e) {
        String op = e.op();
        if (op.equals(OpType.ALLTOALL.displayName()) || op.equals(OpType.ALLTOALL_BASE.displayName())
                || op.equals(OpType.COALESCED.displayName()) || op.equals(OpType.UNKNOWN.displayName())
                || op.equals(OpType._ALLREDUCE_SPARSE.displayName())) {
            return null;
        }
        if (op.equals(OpType.SCATTER.displayName())) {
            return e.outputShapes();
        }
        return e.inputShapes();
    }
}
