/**
 * The live view of a running job: {@code DashboardServer}, the {@code DashboardProvider} the
 * transport finds through {@link java.util.ServiceLoader} when a group has {@code DashboardOptions},
 * over Reactor Netty's HTTP server.
 */
module io.reactivecollectives.dashboard {
    requires transitive io.reactivecollectives.transport;
    requires reactor.netty.core;
    requires reactor.netty.http;
    requires io.netty.codec.http;
    // Reactor Netty's HTTP classes load the HTTP/2 codec (Reactor Netty is an automatic module and
    // cannot say so itself)
    requires io.netty.codec.http2;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports io.reactivecollectives.dashboard;

    // Jackson writes and reads the ranks' and the job's state (RankState, JobState)
    opens io.reactivecollectives.dashboard to com.fasterxml.jackson.databind;

    provides io.reactivecollectives.transport.DashboardProvider with io.reactivecollectives.dashboard.DashboardServer;
}
