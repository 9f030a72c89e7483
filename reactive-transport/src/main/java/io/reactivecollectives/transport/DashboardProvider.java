package io.reactivecollectives.transport;

import reactor.core.publisher.Mono;

/**
 * What serves a rank's live view when a group is started with a dashboard
 * ({@link GroupOptions#withDashboard(DashboardOptions)}), found on the class path through
 * {@link java.util.ServiceLoader}: {@code reactive-dashboard} provides it. A group asked for a
 * dashboard when no provider is on the class path fails to start, saying which artifact to add.
 *
 * <p>Implementations have a public no-argument constructor and are listed in
 * {@code META-INF/services/io.reactivecollectives.transport.DashboardProvider}.
 */
public interface DashboardProvider {

    /**
     * Starts serving {@code view} where {@link GroupView#dashboard()} says. Cold; the group closes
     * what it emits when the group is closed.
     *
     * @param view the rank's live view
     * @return a cold {@code Mono} emitting what stops the serving, or failing with why it could not start
     */
    Mono<? extends AutoCloseable> serve(GroupView view);
}
