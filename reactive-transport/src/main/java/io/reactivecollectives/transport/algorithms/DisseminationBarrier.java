package io.reactivecollectives.transport.algorithms;

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
        Mono<Void> chain = null;
        int step = 0;
        for (int k = 1; k < n; k <<= 1, step++) {
            Mono<Void> round = Transfers.exchangeEmpty(p, (r + k) % n, Math.floorMod(r - k, n), step);
            chain = chain == null ? round : chain.then(round);
        }
        if (chain == null) {
            return Mono.empty();
        }
        return chain;
    }
}
