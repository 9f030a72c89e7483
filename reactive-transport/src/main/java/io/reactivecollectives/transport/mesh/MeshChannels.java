package io.reactivecollectives.transport.mesh;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.DomainSocketChannel;
import io.reactivecollectives.transport.settings.TransportSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Path;

/**
 * Which Netty transport carries the mesh's connections, decided once per JVM: native epoll where
 * it loads (Linux x86-64) unless {@code rc.transport.native=nio}, else NIO. The one place that
 * knows: {@link MeshEventLoops} builds its loops from {@link #ioHandlers}, and the sockets on those
 * loops follow the loops' kind (Reactor Netty's {@code runOn(EventLoopGroup)} makes
 * {@code EpollSocketChannel}, {@code EpollServerSocketChannel}, {@code EpollDomainSocketChannel}
 * and {@code EpollServerDomainSocketChannel} on epoll loops, the NIO ones on NIO loops); the Unix
 * socket addresses the mesh binds and dials come from {@link #domainAddress}, since the native
 * channels take Netty's {@link DomainSocketAddress} and NIO's take the JDK's.
 *
 * <p>Why NIO was chosen is logged once, at debug. The store and the dashboard keep Reactor
 * Netty's own loops (epoll too when it loads, the store's Unix sockets excepted).
 */
public final class MeshChannels {

    private static final Logger log = LoggerFactory.getLogger(MeshChannels.class);

    private static final boolean EPOLL = choose(TransportSettings.NATIVE.get());

    private MeshChannels() {
    }

    /**
     * Whether to use epoll: not when {@code setting} is {@code nio}, nor where epoll does not load.
     * Logs the reason for NIO at debug.
     */
    static boolean choose(String setting) {
        if ("nio".equals(setting)) {
            log.debug("mesh connections on NIO: rc.transport.native=nio");
            return false;
        }
        String why = epollUnavailableReason();
        if (why != null) {
            log.debug("mesh connections on NIO: native epoll is not available ({})", why);
            return false;
        }
        return true;
    }

    /** Why native epoll cannot be used in this JVM, or {@code null} when it can. */
    static String epollUnavailableReason() {
        try {
            if (Epoll.isAvailable()) {
                return null;
            }
            Throwable cause = Epoll.unavailabilityCause();
            return cause == null ? "unknown reason" : cause.toString();
        } catch (LinkageError e) {   // the epoll classes are not on the class path
            return e.toString();
        }
    }

    /** {@return {@code "epoll"} or {@code "nio"}: the transport of the mesh's connections in this JVM} */
    public static String name() {
        return EPOLL ? "epoll" : "nio";
    }

    /** Whether the mesh's connections are native epoll ones. */
    static boolean epoll() {
        return EPOLL;
    }

    /** The handlers of a mesh event loop, selecting (or polling first) as {@code strategies} says. */
    static IoHandlerFactory ioHandlers(SelectStrategyFactory strategies) {
        // maxEvents 0: the ready-event array starts small and grows with the load
        return EPOLL ? EpollIoHandler.newFactory(0, strategies)
                : NioIoHandler.newFactory(SelectorProvider.provider(), strategies);
    }

    /** The address of the Unix domain socket at {@code path}, as the mesh's channels take it. */
    static SocketAddress domainAddress(Path path) {
        return EPOLL ? new DomainSocketAddress(path.toString()) : UnixDomainSocketAddress.of(path);
    }

    /** Whether {@code ch} is a Unix domain socket (a peer on this host). */
    static boolean isDomainSocket(Channel ch) {
        return ch instanceof NioDomainSocketChannel || ch instanceof DomainSocketChannel;
    }
}
