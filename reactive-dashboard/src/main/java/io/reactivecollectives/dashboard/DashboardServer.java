package io.reactivecollectives.dashboard;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.transport.DashboardOptions;
import io.reactivecollectives.transport.DashboardProvider;
import io.reactivecollectives.transport.GroupView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Serves a rank's live view and the job page ({@link DashboardProvider}, found by the transport through
 * {@link java.util.ServiceLoader}): binds Reactor Netty's HTTP server where {@link DashboardOptions}
 * says, publishes the address in the group's store for the other ranks' job pages, and rank 0 says
 * where its page is. All dashboards of a JVM share one event-loop thread of their own, apart from the
 * collectives' connections, and one bounded pool of client connections; requests are small and
 * bounded ({@link #MAX_INITIAL_LINE} bytes of request line, {@link #MAX_HEADERS} of headers), idle
 * connections close after {@link #IDLE}.
 */
public final class DashboardServer implements DashboardProvider {

    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADERS = 8192;
    static final Duration IDLE = Duration.ofSeconds(15);

    private static final class Shared {
        static final LoopResources LOOPS = LoopResources.create("rc-dashboard", 1, true);
        static final ConnectionProvider POOL = ConnectionProvider.builder("rc-dashboard").maxConnections(64)
                .pendingAcquireMaxCount(1024).maxIdleTime(Duration.ofSeconds(20)).build();
    }

    /** For {@link java.util.ServiceLoader}. */
    public DashboardServer() {
    }

    @Override
    public Mono<AutoCloseable> serve(GroupView view) {
        DashboardOptions options = view.dashboard();
        return Mono.defer(() -> {
            boolean needsSecret = !options.loopbackOnly();
            if (needsSecret && !view.hasSecret()) {
                return Mono.error(new IllegalStateException("group '" + view.groupId() + "' rank " + view.rank()
                        + ": the dashboard at " + options.spec() + " is not on loopback, so it needs the group's "
                        + "secret to serve, and the group has none (GroupOptions.withSecret, or RC_STORE_SECRET under ProcessGroups)"));
            }
            return Mono.fromCallable(StaticPage::files).subscribeOn(BlockingScheduler.get())
                    .flatMap(files -> bind(view, options, needsSecret, files));
        });
    }

    private Mono<AutoCloseable> bind(GroupView view, DashboardOptions options, boolean needsSecret,
                                              Map<String, StaticPage.File> files) {
        String host = hostName();
        RankStates rank = new RankStates(view, host);
        JobStates job = new JobStates(view, rank, HttpClient.create(Shared.POOL).runOn(Shared.LOOPS));
        DashboardRoutes routes = new DashboardRoutes(view, needsSecret, rank, job, files);
        return HttpServer.create()
                .runOn(Shared.LOOPS)
                .host(options.host())
                .port(options.portOf(view.rank()))
                .idleTimeout(IDLE)
                .httpRequestDecoder(spec -> spec.maxInitialLineLength(MAX_INITIAL_LINE).maxHeaderSize(MAX_HEADERS))
                .handle(routes::handle)
                .bind()
                .onErrorMap(e -> new IllegalStateException("group '" + view.groupId() + "' rank " + view.rank()
                        + ": the dashboard cannot bind " + options.host() + ":" + options.portOf(view.rank()) + ": " + e, e))
                // the group's close disposes the server without waiting (it may run on any thread)
                .flatMap(server -> publish(view, server, host).thenReturn((AutoCloseable) server::dispose)
                        .doOnError(e -> server.dispose()));
    }

    /** Publishes the address in the store (a wildcard bind under the host's name), then rank 0 says where the page is. */
    private static Mono<Void> publish(GroupView view, DisposableServer server, String hostName) {
        InetSocketAddress a = (InetSocketAddress) server.address();
        String host = a.getAddress().isAnyLocalAddress() ? hostName : a.getAddress().getHostAddress();
        String url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
        return view.store().set(JobStates.key(view, view.rank()), url.getBytes(StandardCharsets.UTF_8))
                .publishOn(BlockingScheduler.get())
                .doOnSuccess(v -> {
                    String line = "group '" + view.groupId() + "' rank " + view.rank() + ": dashboard at " + url + "/";
                    if (view.rank() == 0) {
                        Notices.info(LOG, line + " (the whole job's page)");
                    } else {
                        LOG.debug(line);
                    }
                });
    }

    /**
     * Where rank {@code rank} of {@code view}'s job serves its dashboard, as it published it in the
     * group's store (rank 0's is the whole job's page).
     *
     * @param view a rank's view of the group
     * @param rank the rank whose address is wanted
     * @param wait how long to wait for it to be published
     * @return a cold {@code Mono} of its base URL ({@code http://host:port}), failing when it is not
     *         published within {@code wait}
     */
    public static Mono<String> address(GroupView view, int rank, Duration wait) {
        return view.store().get(JobStates.key(view, rank), wait).map(b -> new String(b, StandardCharsets.UTF_8));
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }
}
