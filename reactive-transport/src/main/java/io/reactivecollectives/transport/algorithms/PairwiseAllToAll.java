package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Pairwise-exchange all-to-all: in step {@code s} (1 to {@code n - 1}) rank {@code r} sends its
 * piece for rank {@code r + s} and receives rank {@code r - s}'s piece for it, so every step is a
 * permutation in which each rank sends one piece and receives one; its own piece is copied locally.
 * Pieces go zero-copy from the input and land straight in the output, as segments of
 * {@link Peers#segmentBytes()}; the steps run concurrently (every connection busy at once), each
 * with up to {@link Peers#pipelineDepth()} segments in flight. Pieces may have any lengths (uneven
 * splits) as long as each sender and receiver agree on the length of the piece between them.
 */
public final class PairwiseAllToAll {

    private PairwiseAllToAll() {
    }

    /**
     * Sends {@code send[q]} to rank {@code q} and receives rank {@code q}'s piece into
     * {@code recv[q]}, for every rank {@code q} (this rank's own piece is copied:
     * {@code send[rank]} and {@code recv[rank]} must have the same length).
     */
    public static Mono<Void> run(Peers p, Region[] send, Region[] recv) {
        int n = p.size();
        int r = p.rank();
        Mono<Void> local = localPiece(p, send, recv);
        if (n == 1) {
            return local;
        }
        return local.then(Flux.range(1, n - 1)
                .flatMap(s -> {
                    int dst = (r + s) % n;
                    int src = (r - s + n) % n;
                    return Mono.when(Segments.send(p, dst, s, send[dst]), Segments.receive(p, src, s, recv[src]));
                }, n - 1)
                .then());
    }

    /**
     * An all-to-all's own piece, copied locally on subscription; an error when there is not one piece
     * per rank to send and to receive.
     */
    static Mono<Void> localPiece(Peers p, Region[] send, Region[] recv) {
        int n = p.size();
        if (send.length != n || recv.length != n) {
            return Mono.error(new IllegalArgumentException(p.op() + ": " + send.length + " pieces to send and "
                    + recv.length + " to receive for " + n + " ranks"));
        }
        return Mono.fromRunnable(() -> recv[p.rank()].copyFrom(send[p.rank()]));
    }
}
