package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Direct gather (large messages, gloo's gather): every rank sends its piece straight to the root,
 * zero-copy, as segments of {@link Peers#segmentBytes()}; the root receives every peer's piece at
 * once straight into its output. One hop per byte, so the root's link is the only bottleneck.
 */
public final class DirectGather {

    private DirectGather() {
    }

    /** Gathers {@code local} of every rank into {@code outputs[q]} on {@code root} (outputs used only there). */
    public static Mono<Void> run(Peers p, int root, Region local, Region[] outputs) {
        int n = p.size();
        int r = p.rank();
        if (r != root) {
            return Segments.send(p, root, 0, local);
        }
        return Mono.fromRunnable(() -> outputs[r].copyFrom(local))
                .then(Flux.range(0, n)
                        .filter(q -> q != root)
                        .flatMap(q -> Segments.receive(p, q, 0, outputs[q]), Math.max(1, n - 1))
                        .then());
    }
}
