package io.reactivecollectives.perf;

import reactor.netty.resources.LoopResources;

/** Names the socket transport Reactor Netty uses in this JVM. */
final class Transport {

    private Transport() {
    }

    static String describe() {
        return LoopResources.hasNativeSupport() ? "tcp/epoll" : "tcp/nio";
    }

    /** The transport rank {@code self} uses to its first peer, as the group reports it ({@code unix/nio}, {@code tcp/nio}). */
    static String describe(io.reactivecollectives.core.ProcessGroup g) {
        if (g instanceof io.reactivecollectives.transport.TcpProcessGroup && g.size() > 1) {
            String t = ((io.reactivecollectives.transport.TcpProcessGroup) g).transportTo(g.rank() == 0 ? 1 : 0);
            return t + "/nio";
        }
        return describe();
    }
}
