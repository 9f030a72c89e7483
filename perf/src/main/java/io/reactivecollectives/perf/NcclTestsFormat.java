package io.reactivecollectives.perf;

import io.reactivecollectives.core.DType;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;

/**
 * nccl-tests' text layout, printf for printf (NVIDIA/nccl-tests 2.19.6, src/util.cu:
 * {@code writeDeviceReport}, {@code writeResultHeader}, {@code writeBenchmarkLinePreamble},
 * {@code writeBenchmarkLineBody}, {@code getFloatStr}, {@code writeResultFooter}; the layout of
 * every release since 2.17): the {@code #} header, the two column-header lines, one row per size
 * with the out-of-place and the in-place result, and the footer. C's {@code %f} and {@code %g} are
 * reproduced exactly (the binary value rounded half-even, {@code %g}'s trailing zeros dropped), not
 * Java's.
 */
final class NcclTestsFormat {

    /** The nccl-tests release whose layout this is. */
    static final String LAYOUT_VERSION = "2.19.6";

    private NcclTestsFormat() {
    }

    /** One place's result: time in microseconds, algbw and busbw in GB/s, wrong elements or {@link PerfReport#NOT_CHECKED}. */
    record Place(double timeUs, double algbw, double busbw, long wrong) {
    }

    /** nccl-tests' binary name for a collective: {@code all_reduce_perf}, {@code alltoall_perf}. */
    static String program(String collective) {
        return (collective.equals("all_to_all") ? "alltoall" : collective) + "_perf";
    }

    /** The header line that names the test: {@code # Collective test starting: all_reduce_perf}. */
    static final String STARTING = "# Collective test starting: ";

    /** The collective a test program ({@link #program}) measures: {@code all_to_all} of {@code alltoall_perf}. */
    static String collective(String program) {
        String p = program.replaceFirst("_perf$", "");
        return p.equals("alltoall") ? "all_to_all" : p;
    }

    /** nccl-tests' name of a data type ({@code test_typenames}): float, half, double, bfloat16, int8, ... */
    static String typeName(DType dt) {
        switch (dt) {
            case FLOAT32: return "float";
            case FLOAT16: return "half";
            case FLOAT64: return "double";
            default: return dt.toString();
        }
    }

    /** {@code # nThread ...}: the run's parameters, as nccl-tests' third line. */
    static String parameters(long minBytes, long maxBytes, int factor, long stepBytes, int warmup, int iters, int check) {
        return String.format(Locale.ROOT, "# nThread %d nGpus %d minBytes %d maxBytes %d step: %d(%s) warmup iters: %d iters: %d"
                        + " agg iters: %d validation: %d graph: %d unalign: %d",
                1, 1, minBytes, maxBytes, stepBytes > 0 ? stepBytes : factor, stepBytes > 0 ? "bytes" : "factor",
                warmup, iters, 1, check, 0, 0);
    }

    /** nccl-tests' line for {@code -z} 1, 2 or 3 (none for 0). */
    static List<String> blocking(int mode) {
        switch (mode) {
            case 1: return List.of("# Blocking Enabled: wait and barrier after each inner iteration (-m) ");
            case 2: return List.of("# Blocking Enabled: wait after each inner iteration (-m), no barrier ");
            case 3: return List.of("# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier ");
            default: return List.of();
        }
    }

    /** {@code #  Rank  0 Group  0 Pid  1234 on   hostname device  0 [0000:00:00] name}. */
    static String device(int rank, long pid, String host, int device, String name) {
        return String.format(Locale.ROOT, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s",
                rank, 0, pid, host, device, 0, 0, 0, name);
    }

    /** The column header: {@code #}, then the out-of-place/in-place line, the names and the units. */
    static List<String> columns() {
        return List.of("#",
                String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          ",
                        "", "", "", "", ""),
                String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s",
                        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                        "#wrong", ""),
                String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s",
                        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", ""));
    }

    /** One size's row: bytes, count, type, redop, root, then each place's time, algbw, busbw and #wrong. */
    static String row(long bytes, long count, String type, String redop, int root, Place outOfPlace, Place inPlace) {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6s", bytes, count, type, redop, String.format(Locale.ROOT, "%6d", root))
                + body(outOfPlace) + body(inPlace);
    }

    private static String body(Place p) {
        String head = String.format(Locale.ROOT, "  %7s  %6s  %6s", floatStr(p.timeUs(), 7), floatStr(p.algbw(), 6), floatStr(p.busbw(), 6));
        return p.wrong() == PerfReport.NOT_CHECKED ? head + "    N/A" : head + "  " + pad(cG(p.wrong()), 6);
    }

    /** The footer: out-of-bounds count, average bus bandwidth, {@code #}, the end line, {@code #} and an empty line. */
    static List<String> footer(long errors, double avgBusbw, String program) {
        return List.of(String.format(Locale.ROOT, "# %-20s : %d %s", "Out of bounds values", errors, errors != 0 ? "FAILED" : "OK"),
                String.format(Locale.ROOT, "# %-20s : %s %s", "Avg bus bandwidth", cG(avgBusbw), ""),
                "#",
                "# Collective test concluded: " + program,
                "#",
                "");
    }

    /**
     * nccl-tests' {@code getFloatStr}: {@code %*.2f}, else {@code %*.1f}, else {@code %*.0f} if it fits
     * {@code width}, else {@code %*.1e} (width 7 and up) or {@code %*.0e}.
     */
    static String floatStr(double value, int width) {
        for (int decimals = 2; decimals >= 0; decimals--) {
            String s = pad(cFixed(value, decimals), width);
            if (s.length() <= width) {
                return s;
            }
        }
        String e = pad(String.format(Locale.ROOT, width >= 7 ? "%.1e" : "%.0e", value), width);
        return e.length() > width ? e.substring(0, width) : e; // snprintf(str, width + 1, ...) cuts it there
    }

    /** C's {@code %.Nf}: the double's exact binary value rounded half-even (Java's {@code %f} rounds the shortest decimal half-up). */
    static String cFixed(double value, int decimals) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
        }
        String s = new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        return s.equals("-0") || s.startsWith("-0.") && s.chars().skip(3).allMatch(c -> c == '0') ? s.substring(1) : s;
    }

    /** C's {@code %g}: 6 significant digits, exponent form below 1e-4 and from 1e6, trailing zeros dropped. */
    static String cG(double value) {
        if (value == 0) {
            return "0";
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return cFixed(value, 0);
        }
        BigDecimal rounded = new BigDecimal(value).round(new java.math.MathContext(6, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            String mantissa = strip(rounded.movePointLeft(exponent).setScale(5, RoundingMode.HALF_EVEN).toPlainString());
            return String.format(Locale.ROOT, "%se%s%02d", mantissa, exponent < 0 ? "-" : "+", Math.abs(exponent));
        }
        return strip(rounded.setScale(Math.max(0, 5 - exponent), RoundingMode.HALF_EVEN).toPlainString());
    }

    private static String strip(String s) {
        if (!s.contains(".")) {
            return s;
        }
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }
}
