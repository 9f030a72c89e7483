package io.reactivecollectives.perf;

import reactor.netty.resources.LoopResources;

/** Names the socket transport Reactor Netty uses in this JVM. */
final class Transport {

    private Transport() {
    }

    static String describe() {
        return LoopResources.hasNativeSupport() ? "tcp/epoll" : "tcp/nio";
    }
}
