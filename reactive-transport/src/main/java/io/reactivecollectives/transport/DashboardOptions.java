package io.reactivecollectives.transport;

import io.reactivecollectives.transport.settings.TransportSettings;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Where a rank serves its live view (the {@code reactive-dashboard} artifact): a small HTTP endpoint
 * per rank with the collectives in flight, the last ones finished, bytes and rates per peer and the
 * flight recorder, and one page for the whole job. Opt-in: set through
 * {@link GroupOptions#withDashboard(DashboardOptions)}, the system property {@value #PROPERTY} or the
 * environment variable {@value #ENV} ({@code collectives-run --dashboard[=PORT]} sets it), in the
 * spellings of {@link #parse(String)}.
 *
 * <p>Rank 0 binds {@code port} (0 for any free one); every other rank binds a free port on the same
 * {@code host} and publishes its address in the group's store, where the job page finds it. An
 * address other than loopback is served only to requests that carry the group's secret, so a group
 * without a secret refuses to serve one.
 *
 * @param host the address to bind: {@value #LOOPBACK} by default
 * @param port rank 0's port, in {@code [0, 65535]}; 0 for any free port
 */
public record DashboardOptions(String host, int port) {

    /** System property that opens a dashboard on every rank (the spellings of {@link #parse(String)}). */
    public static final String PROPERTY = "rc.dashboard";
    /** Environment variable read when the property is not set. */
    public static final String ENV = "RC_DASHBOARD";
    /** The port of {@code collectives-run --dashboard} without a value. */
    public static final int DEFAULT_PORT = 8470;
    /** The default address: the loopback interface only. */
    public static final String LOOPBACK = io.reactivecollectives.transport.settings.DashboardSpec.LOOPBACK;

    /**
     * Checks the options.
     *
     * @param host the address to bind, not blank
     * @param port rank 0's port, in {@code [0, 65535]}
     * @throws IllegalArgumentException when the host is blank or the port out of range
     */
    public DashboardOptions {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("dashboard: the host must not be blank");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("dashboard: port " + port + " is outside [0, 65535]");
        }
    }

    /**
     * A dashboard on the loopback interface.
     *
     * @param port rank 0's port; 0 for any free port
     * @return the options
     */
    public static DashboardOptions loopback(int port) {
        return new DashboardOptions(LOOPBACK, port);
    }

    /**
     * Reads a setting: {@code off} (or empty) for none, {@code on} for any free port on loopback,
     * {@code PORT} for rank 0 on that port of loopback, {@code HOST:PORT} for another address.
     *
     * @param spec the setting
     * @return the options, or null for none
     * @throws IllegalArgumentException when the setting is none of these, naming it
     */
    public static DashboardOptions parse(String spec) {
        try {
            io.reactivecollectives.transport.settings.DashboardSpec d = io.reactivecollectives.transport.settings.DashboardSpec.parse(spec);
            return d == null ? null : new DashboardOptions(d.host(), d.port());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("dashboard: '" + spec + "' is not off, on, PORT or HOST:PORT ("
                    + PROPERTY + " / " + ENV + ")", e);
        }
    }

    /**
     * The setting of {@value #PROPERTY}, else of {@value #ENV} in {@code env}.
     *
     * @param env the environment ({@code System.getenv()})
     * @return the options, or null for none
     * @throws IllegalArgumentException when the setting cannot be read
     */
    public static DashboardOptions fromEnvironment(Map<String, String> env) {
        return parse(TransportSettings.DASHBOARD.get(env));
    }

    /** {@return whether only this machine can connect: a loopback address} */
    public boolean loopbackOnly() {
        return host.equals("localhost") || host.equals("::1") || host.startsWith("127.");
    }

    /**
     * The port rank {@code rank} binds: {@link #port()} for rank 0, any free one for the others.
     *
     * @param rank the rank
     * @return the port to bind
     */
    public int portOf(int rank) {
        return rank == 0 ? port : 0;
    }

    /** {@return the setting that gives these options back through {@link #parse(String)}} */
    public String spec() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
