package io.reactivecollectives.core.settings;

import java.time.Duration;
import java.util.Locale;

/** The parsers of {@link Setting}'s types; each throws {@link IllegalArgumentException} saying why. */
final class SettingParsers {

    private SettingParsers() {
    }

    /** {@code true} or {@code false}, in any case. */
    static Boolean bool(String v) {
        String t = v.trim();
        if (t.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (t.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("expected true or false");
    }

    /** {@code value} when in {@code [min, max]}. */
    static long inRange(long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("out of range [" + min + ", " + max + "]");
        }
        return value;
    }

    /** The type's label with its range where it is narrower than the type's own. */
    static String rangeType(String type, long min, long max, long typeMin, long typeMax) {
        if (min > typeMin && max < typeMax) {
            return type + ", " + min + "-" + max;
        }
        if (min > typeMin) {
            return type + ", >= " + min;
        }
        return max < typeMax ? type + ", <= " + max : type;
    }

    /** A number of bytes with an optional binary suffix: {@code 65536}, {@code 64K}, {@code 2M}, {@code 1G}, {@code 16KiB}. */
    static long bytes(String v) {
        String t = v.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("IB")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("B") && t.length() > 1 && "KMG".indexOf(t.charAt(t.length() - 2)) >= 0) {
            t = t.substring(0, t.length() - 1);
        }
        int shift = 0;
        if (!t.isEmpty()) {
            int at = "KMG".indexOf(t.charAt(t.length() - 1));
            if (at >= 0) {
                shift = 10 * (at + 1);
                t = t.substring(0, t.length() - 1).trim();
            }
        }
        long n = Long.parseLong(t);
        if (n != 0 && (Math.abs(n) > (Long.MAX_VALUE >> shift))) {
            throw new IllegalArgumentException("too large");
        }
        return n << shift;
    }

    /** Seconds ({@code 5}, {@code 0.5}) or a number with {@code ms} or {@code s}; {@code 0} or {@code off}: zero. */
    static Duration duration(String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        if (t.equals("off")) {
            return Duration.ZERO;
        }
        double millis = t.endsWith("ms") ? Double.parseDouble(t.substring(0, t.length() - 2).trim())
                : Double.parseDouble((t.endsWith("s") ? t.substring(0, t.length() - 1) : t).trim()) * 1000;
        if (millis < 0 || Double.isNaN(millis) || Double.isInfinite(millis)) {
            throw new IllegalArgumentException("expected a duration of at least 0 (5, 0.5, 1500ms, 2s, or 0/off)");
        }
        return Duration.ofMillis(Math.round(millis));
    }

    /** One of {@code choices}, in any case, returned in lower case. */
    static String choice(String v, String... choices) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        for (String c : choices) {
            if (c.equalsIgnoreCase(t)) {
                return t;
            }
        }
        throw new IllegalArgumentException("expected one of " + String.join(", ", choices));
    }
}
