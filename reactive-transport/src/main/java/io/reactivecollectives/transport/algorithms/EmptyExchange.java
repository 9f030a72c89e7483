package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A collective over an empty tensor: one empty message to every peer and one from every peer
 * (step 0, chunk 0), and nothing else. Nothing needs to move, but each message carries the sender's
 * agreement word and element count, so a rank whose tensor is empty while a peer's is not fails
 * on both sides with the mismatch, instead of completing alone while its peers wait for it (or
 * completing with an empty result where the others fail). When every rank's tensor is empty the
 * messages agree and the collective completes.
 */
public final class EmptyExchange {

    private EmptyExchange() {
    }

    /** Exchanges the empty messages with every peer; completes once every peer's has come. */
    public static Mono<Void> run(Peers p) {
        int n = p.size();
        if (n == 1) {
            return Mono.empty();
        }
        int me = p.rank();
        return Flux.range(1, n - 1)
                .flatMap(k -> Mono.when(p.send((me + k) % n, 0, 0, Unpooled.EMPTY_BUFFER),
                        p.receive((me - k + n) % n, 0, 0).doOnNext(ByteBuf::release).then()), n - 1)
                .then();
    }
}
