/**
 * The TCP transport: {@code MeshProcessGroup}, {@code LocalCluster}, {@code GroupOptions},
 * {@code ProcessGroups} (launch from the environment) and the launchers' environment
 * ({@code transport.launch}). The TCP store and its server ({@code transport.rendezvous}) are
 * {@code io.reactivecollectives.store}'s, which this module requires transitively (the launchers'
 * {@code Rendezvous} hands out a {@code TcpStoreServer}); the wire pieces the mesh shares with the
 * store come from there too ({@code io.reactivecollectives.store.wire}, exported to this module
 * only). The packages below the facade ({@code runtime}, {@code ops}, {@code failure},
 * {@code group}, {@code algorithms}, {@code decision}, {@code frame}, {@code mesh}, {@code shm}, {@code wire}) are the
 * implementation and are not exported.
 *
 * <p>Services: a {@code LaunchProvider} names the rank and world of a launcher this module does not
 * know (reactive-spark's barrier tasks); a {@code DashboardProvider} serves a rank's live view
 * (reactive-dashboard).
 */
module io.reactivecollectives.transport {
    requires transitive io.reactivecollectives.core;
    // the TCP store (transport.rendezvous): the launchers' Rendezvous names TcpStoreServer in its API
    requires transitive io.reactivecollectives.store;
    // TlsOptions and the store server's builder take Netty's SslContext and Reactor Netty's LoopResources
    requires transitive io.netty.handler;
    requires transitive reactor.netty.core;
    requires io.netty.transport;
    requires io.netty.codec;
    // the mesh's native transport (mesh.MeshChannels): epoll's classes and the Unix socket types
    // they share with NIO's fall-back; the JNI library comes in io.netty.transport.epoll.linux.x86_64
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    // Reactor Netty's default resolver of the host names the mesh and the store dial (it is an
    // automatic module and cannot say so itself)
    requires io.netty.resolver.dns;
    requires org.slf4j;
    // the data path's compiler directives, added through HotSpot's DiagnosticCommand MBean (runtime.DataPathDirectives)
    requires java.management;

    exports io.reactivecollectives.transport;
    exports io.reactivecollectives.transport.launch;
    // host:port as the store and the mesh write it (IPv6 in brackets), for collectives-run's --store-peers
    exports io.reactivecollectives.transport.wire to io.reactivecollectives.tools;

    uses io.reactivecollectives.transport.LaunchProvider;
    uses io.reactivecollectives.transport.DashboardProvider;
    provides io.reactivecollectives.core.settings.SettingsProvider
            with io.reactivecollectives.transport.settings.TransportSettings;
}
