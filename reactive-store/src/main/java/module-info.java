/**
 * The TCP store on its own: its server ({@code TcpStoreServer}), its client ({@code TcpStore}), a
 * client of PyTorch's {@code TCPStore} ({@code TorchTcpStore}) and their codecs, all in
 * {@code io.reactivecollectives.transport.rendezvous} (the package they had in
 * {@code reactive-transport}, so that code importing them compiles unchanged; only this module holds
 * it). It needs core alone: a job that deploys the store, or uses one without the collectives, need
 * not bring the transport.
 *
 * <p>{@code io.reactivecollectives.store.wire} holds what the store and the transport's rank mesh
 * share (the length-prefixed decoder, the handshake MAC, the Unix-socket files) and is exported to
 * the transport only; {@code io.reactivecollectives.store.settings} declares the store's settings.
 */
module io.reactivecollectives.store {
    requires transitive io.reactivecollectives.core;
    // the server's builder takes Netty's SslContext and Reactor Netty's LoopResources
    requires transitive io.netty.handler;
    requires transitive reactor.netty.core;
    requires io.netty.transport;
    requires io.netty.codec;
    // Reactor Netty's default resolver of the host names the store's clients dial (it is an
    // automatic module and cannot say so itself)
    requires io.netty.resolver.dns;
    requires org.slf4j;

    exports io.reactivecollectives.transport.rendezvous;
    // the replication of a store held by several processes (collectives-run --store-peers): reactive-store-raft
    uses io.reactivecollectives.transport.rendezvous.StoreReplicationProvider;
    exports io.reactivecollectives.store.wire to io.reactivecollectives.transport;

    provides io.reactivecollectives.core.settings.SettingsProvider
            with io.reactivecollectives.store.settings.StoreSettings;
}
