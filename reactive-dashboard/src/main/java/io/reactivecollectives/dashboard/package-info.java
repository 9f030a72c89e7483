/**
 * A live view of a running job: {@link io.reactivecollectives.dashboard.DashboardServer} serves, per
 * rank, JSON about what the rank runs now and what it finished ({@code /api/rank}), its flight recorder
 * ({@code /api/flight-recorder}) and a Chrome trace of it ({@code /api/trace}); and on every rank the
 * whole job's page ({@code /}, reading {@code /api/job}) with the rank that is behind named in a
 * banner ({@link io.reactivecollectives.dashboard.Stragglers}) and a trace of all ranks
 * ({@code /api/job/trace}). Turned on with {@code GroupOptions.withDashboard}, {@code rc.dashboard} /
 * {@code RC_DASHBOARD}, or {@code collectives-run --dashboard[=PORT]}.
 */
package io.reactivecollectives.dashboard;
