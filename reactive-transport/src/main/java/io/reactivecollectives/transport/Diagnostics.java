package io.reactivecollectives.transport;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.observation.ObservationRegistry;
import io.reactivecollectives.core.observe.CollectiveMetrics;
import io.reactivecollectives.core.observe.CollectiveObserver;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.WaitReports;
import io.reactivecollectives.transport.settings.TransportSettings;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * What a {@link MeshProcessGroup} records about its collectives and how much it checks them (part
 * of {@link GroupOptions}).
 *
 * @param checkCollectives whether ranks exchange a fingerprint (op, sequence number, dtype, shapes,
 *                         root, reduce op) before every collective and fail all of them with a
 *                         {@code CollectiveMismatchException} naming the ranks and what differed when
 *                         they do not match (as c10d's {@code TORCH_DISTRIBUTED_DEBUG=DETAIL}); costs
 *                         one small message to and from each peer per collective
 * @param flightRecorder   the flight recorder's size and dump directory (dumped automatically on a
 *                         timeout or a peer failure)
 * @param meterRegistry    where the group's meters go ({@code rc.collective}, {@code rc.bytes.sent},
 *                         ...; see {@code MetricNames}); null means {@link Metrics#globalRegistry}
 * @param observationRegistry where each collective's {@link io.micrometer.observation.Observation} goes
 *                         (for tracing; see {@link CollectiveObserver#observe}); null means
 *                         {@link ObservationRegistry#NOOP}, which creates nothing per collective
 * @param waitReportInterval how often a rank that waits for others says whom it waits for and for how
 *                         long (at the rendezvous, in a collective stuck for longer than this, in a
 *                         shrink; see {@link WaitReports}); zero for never; default
 *                         {@link WaitReports#defaultInterval()}: the system property
 *                         {@code rc.wait-reports.interval} ({@code RC_WAIT_REPORTS_INTERVAL}), else 5 s
 * @param dashboard        where this rank serves its live view (see {@link DashboardOptions}); null for
 *                         none, the default unless {@value DashboardOptions#PROPERTY} or
 *                         {@value DashboardOptions#ENV} asks for one
 */
public record Diagnostics(boolean checkCollectives, FlightRecorder.Config flightRecorder, MeterRegistry meterRegistry,
                          ObservationRegistry observationRegistry, Duration waitReportInterval,
                          DashboardOptions dashboard) {

    /** System property that turns the collective check on by default ({@code DETAIL}), as c10d's variable. */
    public static final String DEBUG_PROPERTY = "rc.distributed.debug";
    /** Environment variable read when the property is not set. */
    public static final String DEBUG_ENV = "RC_DISTRIBUTED_DEBUG";

    /**
     * Checks the options.
     *
     * @param checkCollectives whether ranks exchange and compare a fingerprint before every collective
     * @param flightRecorder   the flight recorder's size and dump directory, not null
     * @param meterRegistry    where the meters go; null for the global registry
     * @param observationRegistry where the collectives' observations go; null for {@link ObservationRegistry#NOOP}
     * @param waitReportInterval how often a waiting rank reports; zero for never, null for
     *                         {@link WaitReports#defaultInterval()}
     * @param dashboard        where this rank serves its live view; null for none
     * @throws NullPointerException when {@code flightRecorder} is null
     * @throws IllegalArgumentException when {@code waitReportInterval} is negative
     */
    public Diagnostics {
        Objects.requireNonNull(flightRecorder, "flightRecorder");
        if (observationRegistry == null) {
            observationRegistry = ObservationRegistry.NOOP;
        }
        if (waitReportInterval == null) {
            waitReportInterval = WaitReports.defaultInterval();
        }
        if (waitReportInterval.isNegative()) {
            throw new IllegalArgumentException("waitReportInterval must not be negative, got " + waitReportInterval);
        }
    }

    /**
     * Diagnostics without a dashboard.
     *
     * @param checkCollectives whether ranks exchange and compare a fingerprint before every collective
     * @param flightRecorder   the flight recorder's size and dump directory, not null
     * @param meterRegistry    where the meters go; null for the global registry
     * @param observationRegistry where the collectives' observations go; null for {@link ObservationRegistry#NOOP}
     * @param waitReportInterval how often a waiting rank reports; zero for never, null for
     *                         {@link WaitReports#defaultInterval()}
     */
    public Diagnostics(boolean checkCollectives, FlightRecorder.Config flightRecorder, MeterRegistry meterRegistry,
                       ObservationRegistry observationRegistry, Duration waitReportInterval) {
        this(checkCollectives, flightRecorder, meterRegistry, observationRegistry, waitReportInterval, null);
    }

    /**
     * Diagnostics with the wait reports of {@link WaitReports#defaultInterval()}.
     *
     * @param checkCollectives whether ranks exchange and compare a fingerprint before every collective
     * @param flightRecorder   the flight recorder's size and dump directory, not null
     * @param meterRegistry    where the meters go; null for the global registry
     * @param observationRegistry where the collectives' observations go; null for {@link ObservationRegistry#NOOP}
     */
    public Diagnostics(boolean checkCollectives, FlightRecorder.Config flightRecorder, MeterRegistry meterRegistry,
                       ObservationRegistry observationRegistry) {
        this(checkCollectives, flightRecorder, meterRegistry, observationRegistry, null);
    }

    /**
     * Diagnostics without observations ({@link ObservationRegistry#NOOP}).
     *
     * @param checkCollectives whether ranks exchange and compare a fingerprint before every collective
     * @param flightRecorder   the flight recorder's size and dump directory, not null
     * @param meterRegistry    where the meters go; null for the global registry
     */
    public Diagnostics(boolean checkCollectives, FlightRecorder.Config flightRecorder, MeterRegistry meterRegistry) {
        this(checkCollectives, flightRecorder, meterRegistry, ObservationRegistry.NOOP);
    }

    /**
     * The collective check off unless {@value #DEBUG_PROPERTY} (or {@value #DEBUG_ENV}) is
     * {@code DETAIL}, {@link FlightRecorder.Config#defaults()}, the global registry.
     *
     * @return the defaults
     */
    public static Diagnostics defaults() {
        String level = TransportSettings.DISTRIBUTED_DEBUG.get();
        boolean detail = level != null && level.trim().toUpperCase(Locale.ROOT).equals("DETAIL");
        return new Diagnostics(detail, FlightRecorder.Config.defaults(), null, ObservationRegistry.NOOP, null,
                DashboardOptions.fromEnvironment(System.getenv()));
    }

    /**
     * These diagnostics with the collective (mismatch) check turned on or off.
     *
     * @param on whether to check every collective's fingerprint across the ranks
     * @return the new diagnostics
     */
    public Diagnostics withCheckCollectives(boolean on) {
        return new Diagnostics(on, flightRecorder, meterRegistry, observationRegistry, waitReportInterval, dashboard);
    }

    /**
     * These diagnostics with another flight recorder configuration.
     *
     * @param config the flight recorder's size and dump directory
     * @return the new diagnostics
     */
    public Diagnostics withFlightRecorder(FlightRecorder.Config config) {
        return new Diagnostics(checkCollectives, config, meterRegistry, observationRegistry, waitReportInterval, dashboard);
    }

    /**
     * These diagnostics with another meter registry.
     *
     * @param registry where the meters go; null for the global registry
     * @return the new diagnostics
     */
    public Diagnostics withMeterRegistry(MeterRegistry registry) {
        return new Diagnostics(checkCollectives, flightRecorder, registry, observationRegistry, waitReportInterval, dashboard);
    }

    /**
     * These diagnostics with another observation registry: each collective becomes an
     * {@link io.micrometer.observation.Observation} there (see {@link CollectiveObserver#observe}).
     *
     * @param registry where the observations go; null for {@link ObservationRegistry#NOOP} (none)
     * @return the new diagnostics
     */
    public Diagnostics withObservationRegistry(ObservationRegistry registry) {
        return new Diagnostics(checkCollectives, flightRecorder, meterRegistry, registry, waitReportInterval, dashboard);
    }

    /**
     * These diagnostics with another interval between wait reports (see {@link #waitReportInterval()}).
     *
     * @param interval how often a waiting rank says whom it waits for; zero for never
     * @return the new diagnostics
     */
    public Diagnostics withWaitReportInterval(Duration interval) {
        return new Diagnostics(checkCollectives, flightRecorder, meterRegistry, observationRegistry,
                Objects.requireNonNull(interval, "interval"), dashboard);
    }

    /**
     * These diagnostics with another dashboard.
     *
     * @param options where this rank serves its live view, null for none
     * @return the new diagnostics
     */
    public Diagnostics withDashboard(DashboardOptions options) {
        return new Diagnostics(checkCollectives, flightRecorder, meterRegistry, observationRegistry, waitReportInterval,
                options);
    }

    /** {@return the registry meters go to: {@link #meterRegistry()} or, when that is null, the global one} */
    public MeterRegistry registry() {
        return meterRegistry != null ? meterRegistry : Metrics.globalRegistry;
    }

    /** A recorder, meters and observations for one rank of a group. */
    CollectiveObserver observer(String groupId, int rank, int size) {
        return new CollectiveObserver(new FlightRecorder(groupId, rank, size, flightRecorder),
                new CollectiveMetrics(registry(), groupId, rank), observationRegistry);
    }
}
