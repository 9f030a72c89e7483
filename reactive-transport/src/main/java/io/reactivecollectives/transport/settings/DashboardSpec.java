package io.reactivecollectives.transport.settings;

import java.util.Locale;

/**
 * The grammar of a dashboard setting ({@code rc.dashboard} / {@code RC_DASHBOARD}): {@code off} (or
 * {@code false}, or empty), {@code on} (or {@code true}: the loopback address, any free port),
 * {@code PORT}, or {@code HOST:PORT} ({@code [v6]:PORT} too). Here, in the settings package, so that
 * the registry's start-up check and {@code DashboardOptions.parse} read it the same way.
 *
 * @param host the address to bind, not blank
 * @param port rank 0's port, in {@code [0, 65535]}
 */
public record DashboardSpec(String host, int port) {

    /** The address {@code on} and a bare {@code PORT} bind: the loopback interface only. */
    public static final String LOOPBACK = "127.0.0.1";

    /**
     * Checks the parts.
     *
     * @param host the address to bind, not blank
     * @param port rank 0's port, in {@code [0, 65535]}
     * @throws IllegalArgumentException when the host is blank or the port out of range
     */
    public DashboardSpec {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("the dashboard's host is blank");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("the dashboard's port " + port + " is not in [0, 65535]");
        }
    }

    /**
     * Reads a setting's text.
     *
     * @param spec the text
     * @return the address and port, or null for {@code off}
     * @throws IllegalArgumentException when the text is none of the spellings
     */
    public static DashboardSpec parse(String spec) {
        String s = spec == null ? "" : spec.trim();
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.isEmpty() || lower.equals("off") || lower.equals("false")) {
            return null;
        }
        if (lower.equals("on") || lower.equals("true")) {
            return new DashboardSpec(LOOPBACK, 0);
        }
        int colon = s.lastIndexOf(':');
        String host = colon < 0 ? LOOPBACK : s.substring(0, colon);
        String port = colon < 0 ? s : s.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new DashboardSpec(host, Integer.parseInt(port));   // NumberFormatException is an IllegalArgumentException
    }
}
