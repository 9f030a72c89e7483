package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.Unpooled;
import reactor.core.publisher.Mono;

/**
 * Dissemination barrier (any world size): in round {@code k} each rank sends an empty message to
 * rank {@code r + 2^k} and waits for one from {@code r - 2^k}; after {@code ceil(log2 n)} rounds
 * every rank has heard, directly or not, from every other.
 */
public final class DisseminationBarrier {

    private DisseminationBarrier() {
    }

    /** Completes once every rank has entered. */
    public static Mono<Void> run(Peers p) {
        int n = p.size();
        int r = p.rank();
        Mono<Void> chain = Mono.empty();
        int step = 0;
        for (int k = 1; k < n; k <<= 1, step++) {
            int to = (r + k) % n;
            int from = Math.floorMod(r - k, n);
            int s = step;
            chain = chain.then(Mono.when(
                    Mono.defer(() -> p.send(to, s, 0, Unpooled.EMPTY_BUFFER)),
                    p.receive(from, s, 0).doOnNext(b -> b.release()).then()));
        }
        return chain;
    }
}
