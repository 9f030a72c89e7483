package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Binomial-tree scatter (small messages), the mirror of {@link BinomialTreeGather}: in rank order
 * relative to the root, rank {@code v} receives the pieces of its subtree {@code [v, v + lowbit(v))}
 * from its parent {@code v - lowbit(v)} in one message, keeps its own and sends each child
 * {@code v + 2^k} that child's subtree block, all children at once. {@code ceil(log2 n)} rounds of
 * latency; leaves receive straight into their output. Every piece has the same length.
 */
public final class BinomialTreeScatter {

    private BinomialTreeScatter() {
    }

    /**
     * Scatters {@code inputs[q]} (used only on {@code root}) into {@code output} on rank {@code q}.
     */
    public static Mono<Void> run(Peers p, int root, Region[] inputs, Region output) {
        int n = p.size();
        int r = p.rank();
        int piece = output.length();
        int v = Math.floorMod(r - root, n);
        int span = v == 0 ? n : Math.min(Integer.lowestOneBit(v), n - v);
        if (span == 1) {
            if (n == 1) {
                return Mono.fromRunnable(() -> output.copyFrom(inputs[r]));
            }
            return Segments.receive(p, parent(v, root, n), 0, output);
        }
        return Mono.usingWhen(
                Mono.fromCallable(() -> Region.allocate(span * piece)),
                staging -> {
                    Region all = new Region(staging, 0, span * piece);
                    Mono<Void> filled;
                    if (v == 0) {
                        filled = Mono.fromRunnable(() -> {
                            for (int j = 0; j < n; j++) {
                                all.sub(j * piece, piece).copyFrom(inputs[(j + root) % n]);
                            }
                        });
                    } else {
                        filled = Segments.receive(p, parent(v, root, n), 0, all);
                    }
                    return filled.then(Mono.defer(() -> {
                        output.copyFrom(all.sub(0, piece));
                        List<Mono<Void>> children = new ArrayList<>();
                        for (int mask = Integer.highestOneBit(span - 1); mask >= 1; mask >>= 1) {
                            int child = v + mask;
                            int childSpan = Math.min(mask, n - child);
                            children.add(Segments.send(p, (child + root) % n, 0, all.sub(mask * piece, childSpan * piece)));
                        }
                        return Mono.when(children);
                    }));
                },
                staging -> Mono.fromRunnable(staging::release));
    }

    private static int parent(int v, int root, int n) {
        return (v - Integer.lowestOneBit(v) + root) % n;
    }
}
