package io.reactivecollectives.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of one {@code collectives-perf} sweep and how they are written: the nccl-tests-like table
 * ({@code op bytes count time_us algbw busbw #wrong}, the first six columns as the peers' scripts
 * print them), its footer ({@code # Out of bounds values} and {@code # Avg bus bandwidth}, as
 * nccl-tests ends its output), CSV ({@code -F}) and JSON ({@code --json}).
 */
final class PerfReport {

    /** {@link Row#wrong()} of a size that was not checked ({@code -c 0}, or a dtype without a check). */
    static final long NOT_CHECKED = -1;

    /** One size: {@code wrong} is the number of wrong elements over all ranks and checks, or {@link #NOT_CHECKED}. */
    record Row(String op, long bytes, long count, String type, String redop, int root, double timeUs, double algbw,
               double busbw, long wrong) {
    }

    private final Map<String, String> meta;
    private final List<Row> rows = new ArrayList<>();

    /** A report of a run described by {@code meta} (the header line's {@code key=value} pairs, in order). */
    PerfReport(Map<String, String> meta) {
        this.meta = meta;
    }

    void add(Row row) {
        rows.add(row);
    }

    List<Row> rows() {
        return List.copyOf(rows);
    }

    /** The first line: {@code # reactive-collectives key=value ...}. */
    String title() {
        StringBuilder b = new StringBuilder("# reactive-collectives");
        meta.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
        return b.toString();
    }

    static String columns() {
        return String.format(Locale.ROOT, "%14s %12s %10s %10s %8s %8s %6s", "op", "bytes", "count", "time_us", "algbw",
                "busbw", "#wrong");
    }

    static String line(Row r) {
        return String.format(Locale.ROOT, "%14s %12d %10d %10.1f %8.3f %8.3f %6s", r.op(), r.bytes(), r.count(),
                r.timeUs(), r.algbw(), r.busbw(), r.wrong() == NOT_CHECKED ? "N/A" : Long.toString(r.wrong()));
    }

    /** Mean busbw over the sizes (nccl-tests' {@code # Avg bus bandwidth}); 0 with no rows. */
    double averageBusbw() {
        return rows.stream().mapToDouble(Row::busbw).average().orElse(0);
    }

    /** Wrong elements over every checked size; {@link #NOT_CHECKED} when no size was checked. */
    long wrong() {
        long sum = NOT_CHECKED;
        for (Row r : rows) {
            if (r.wrong() != NOT_CHECKED) {
                sum = (sum == NOT_CHECKED ? 0 : sum) + r.wrong();
            }
        }
        return sum;
    }

    /** Whether no checked element was wrong. */
    boolean passed() {
        return wrong() <= 0;
    }

    /** The footer, as nccl-tests ends its output. */
    List<String> footer() {
        List<String> f = new ArrayList<>();
        long w = wrong();
        f.add(w == NOT_CHECKED ? "# Out of bounds values : N/A (not checked)"
                : "# Out of bounds values : " + w + (w == 0 ? " OK" : " FAILED"));
        f.add(String.format(Locale.ROOT, "# Avg bus bandwidth    : %.3f", averageBusbw()));
        return f;
    }

    /** CSV with a header row: one row per size, {@code wrong} empty when not checked. */
    String csv() {
        StringBuilder b = new StringBuilder("op,bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong\n");
        for (Row r : rows) {
            b.append(String.format(Locale.ROOT, "%s,%d,%d,%s,%s,%d,%.3f,%.6f,%.6f,%s%n", r.op(), r.bytes(), r.count(),
                    r.type(), r.redop(), r.root(), r.timeUs(), r.algbw(), r.busbw(),
                    r.wrong() == NOT_CHECKED ? "" : Long.toString(r.wrong())));
        }
        return b.toString().replace(System.lineSeparator(), "\n");
    }

    /** One JSON object: {@code run} (the header's pairs), {@code rows}, {@code avg_busbw_gbps} and {@code wrong}. */
    String json() {
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
                    "{\"op\": %s, \"bytes\": %d, \"count\": %d, \"type\": %s, \"redop\": %s, \"root\": %d, \"time_us\": %.3f,"
                            + " \"algbw_gbps\": %.6f, \"busbw_gbps\": %.6f, \"wrong\": %s}",
                    quote(r.op()), r.bytes(), r.count(), quote(r.type()), quote(r.redop()), r.root(), r.timeUs(), r.algbw(),
                    r.busbw(), r.wrong() == NOT_CHECKED ? "null" : Long.toString(r.wrong())));
            sep = ", ";
        }
        long w = wrong();
        b.append(String.format(Locale.ROOT, "], \"avg_busbw_gbps\": %.6f, \"wrong\": %s}%n", averageBusbw(),
                w == NOT_CHECKED ? "null" : Long.toString(w)));
        return b.toString().replace(System.lineSeparator(), "\n");
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
