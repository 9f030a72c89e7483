package io.reactivecollectives.transport;

import reactor.core.publisher.Mono;

import java.util.ServiceLoader;

/**
 * Opens a group's dashboard, when its options ask for one, through the {@link DashboardProvider} on
 * the class path; the group closes it. A group whose dashboard cannot start does not start either
 * (it is closed and the error says why): a user who asked for a view should not find out later that
 * there is none.
 */
final class Dashboards {

    static final String ARTIFACT = "io.reactivecollectives:reactive-dashboard";

    private Dashboards() {
    }

    /** Starts {@code group}'s dashboard, if any, tied to the group's close. */
    static Mono<Void> open(MeshProcessGroup group) {
        DashboardOptions options = group.options().diagnostics().dashboard();
        if (options == null) {
            return Mono.empty();
        }
        // the class path is read off the event loops (the connect completes on one)
        return Mono.fromCallable(() -> ServiceLoader.load(DashboardProvider.class, Dashboards.class.getClassLoader())
                        .findFirst().orElseThrow(() -> new IllegalStateException("group '" + group.groupId() + "' rank "
                                + group.rank() + ": a dashboard was asked for (" + options.spec() + ") but no "
                                + "DashboardProvider is on the class path: add " + ARTIFACT)))
                .subscribeOn(io.reactivecollectives.core.BlockingScheduler.get())
                .flatMap(provider -> provider.serve(group.view())).doOnNext(group::closeAfterGroup)
                .doOnError(e -> group.close())
                .then();
    }
}
