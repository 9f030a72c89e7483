package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Direct scatter (large messages, gloo's scatter): the root sends each rank its piece straight from
 * the input, zero-copy, all ranks at once, as segments of {@link Peers#segmentBytes()}; the others
 * receive straight into their output.
 */
public final class DirectScatter {

    private DirectScatter() {
    }

    /** Scatters {@code inputs[q]} (used only on {@code root}) into {@code output} on rank {@code q}. */
    public static Mono<Void> run(Peers p, int root, Region[] inputs, Region output) {
        int n = p.size();
        int r = p.rank();
        if (r != root) {
            return Segments.receive(p, root, 0, output);
        }
        return Mono.fromRunnable(() -> output.copyFrom(inputs[r]))
                .then(Flux.range(0, n)
                        .filter(q -> q != root)
                        .flatMap(q -> Segments.send(p, q, 0, inputs[q]), Math.max(1, n - 1))
                        .then());
    }
}
