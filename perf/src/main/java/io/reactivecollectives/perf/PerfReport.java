package io.reactivecollectives.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of one {@code collectives-perf} sweep and how they are written: nccl-tests' table (a row
 * per size with the out-of-place and the in-place result, {@link NcclTestsFormat}), its footer
 * ({@code # Out of bounds values}, {@code # Avg bus bandwidth}), CSV ({@code -F}) and JSON
 * ({@code -J}/{@code --json}).
 */
final class PerfReport {

    /** A place's {@code wrong} when it was not checked ({@code -c 0}). */
    static final long NOT_CHECKED = -1;

    /** One size: its two places' results ({@code wrong}: wrong elements over all ranks and checks, or {@link #NOT_CHECKED}). */
    record Row(String op, long bytes, long count, String type, String redop, int root, NcclTestsFormat.Place outOfPlace,
               NcclTestsFormat.Place inPlace) {

        List<NcclTestsFormat.Place> places() {
            return List.of(outOfPlace, inPlace);
        }
    }

    private final Map<String, String> meta;
    private final List<Row> rows = new ArrayList<>();

    /** A report of a run described by {@code meta} (the {@code --extended} line's {@code key=value} pairs, in order). */
    PerfReport(Map<String, String> meta) {
        this.meta = meta;
    }

    void add(Row row) {
        rows.add(row);
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    /** The {@code --extended} line: {@code # reactive-collectives key=value ...}. */
    String title() {
        StringBuilder b = new StringBuilder("# reactive-collectives");
        meta.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }

    static String line(Row r) {
        return NcclTestsFormat.row(r.bytes(), r.count(), r.type(), r.redop(), r.root(), r.outOfPlace(), r.inPlace());
    }

    /** Mean busbw over every size and place (nccl-tests' {@code # Avg bus bandwidth}); 0 with no rows. */
    double averageBusbw() {
        return rows.stream().flatMap(r -> r.places().stream()).mapToDouble(NcclTestsFormat.Place::busbw).average().orElse(0);
    }

    /**
     * nccl-tests' {@code Out of bounds values}: the results (size and place) with a wrong element,
     * counted by every one of the {@code world} processes and summed, as its MPI build does.
     */
    long errors(int world) {
        return world * rows.stream().flatMap(r -> r.places().stream()).filter(p -> p.wrong() > 0).count();
    }

    /** Whether no checked element was wrong. */
    boolean passed() {
        return errors(1) == 0;
    }

    /** The footer, as nccl-tests ends its output. */
    List<String> footer(String program, int world) {
        return NcclTestsFormat.footer(errors(world), averageBusbw(), program);
    }

    /** CSV with a header row: one row per size, both places ({@code ip_}: in place), {@code wrong} empty when not checked. */
    String csv() {
        StringBuilder b = new StringBuilder("op,bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong,"
                + "ip_time_us,ip_algbw_gbps,ip_busbw_gbps,ip_wrong\n");
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%s,%d,%d,%s,%s,%d", r.op(), r.bytes(), r.count(), r.type(), r.redop(), r.root()));
            for (NcclTestsFormat.Place p : r.places()) {
                b.append(String.format(Locale.ROOT, ",%.3f,%.6f,%.6f,%s", p.timeUs(), p.algbw(), p.busbw(),
                        p.wrong() == NOT_CHECKED ? "" : Long.toString(p.wrong())));
            }
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * One JSON object: {@code run} (the {@code --extended} line's pairs), {@code rows} (each with
     * {@code out_of_place} and {@code in_place}), {@code avg_busbw_gbps} and {@code errors}.
     */
    String json(int world) {
        StringBuilder b = new StringBuilder("{\"run\": {");
        String sep = "";
        for (Map.Entry<String, String> e : meta.entrySet()) {
            b.append(sep).append(quote(e.getKey())).append(": ").append(quote(e.getValue()));
            sep = ", ";
        }
        b.append("}, \"rows\": [");
        sep = "";
        for (Row r : rows) {
            b.append(sep).append(String.format(Locale.ROOT,
                    "{\"op\": %s, \"bytes\": %d, \"count\": %d, \"type\": %s, \"redop\": %s, \"root\": %d, \"out_of_place\": %s,"
                            + " \"in_place\": %s}",
                    quote(r.op()), r.bytes(), r.count(), quote(r.type()), quote(r.redop()), r.root(), json(r.outOfPlace()),
                    json(r.inPlace())));
            sep = ", ";
        }
        b.append(String.format(Locale.ROOT, "], \"avg_busbw_gbps\": %.6f, \"errors\": %d}\n", averageBusbw(), errors(world)));
        return b.toString();
    }

    private static String json(NcclTestsFormat.Place p) {
        return String.format(Locale.ROOT, "{\"time_us\": %.3f, \"algbw_gbps\": %.6f, \"busbw_gbps\": %.6f, \"wrong\": %s}",
                p.timeUs(), p.algbw(), p.busbw(), p.wrong() == NOT_CHECKED ? "null" : Long.toString(p.wrong()));
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }
}
