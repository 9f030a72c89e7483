package io.reactivecollectives.transport.algorithms;

import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * Binomial-tree gather (small messages): in rank order relative to the root, rank {@code v}
 * collects the pieces of its subtree {@code [v, v + lowbit(v))} (the whole group for the root):
 * it receives each child {@code v + 2^k}'s subtree block, all children at once, next to its own
 * piece in one contiguous staging buffer, then sends the whole block to its parent
 * {@code v - lowbit(v)} in one message. {@code ceil(log2 n)} rounds of latency instead of the
 * {@code n - 1} messages a root receives in {@link DirectGather}; leaves send their piece
 * zero-copy. Every piece has the same length.
 */
public final class BinomialTreeGather {

    private BinomialTreeGather() {
    }

    /**
     * Gathers {@code local} (this rank's piece) of every rank into {@code outputs[q]} on
     * {@code root} ({@code outputs} is only used on the root, where {@code outputs[root]} receives a
     * copy of {@code local}).
     */
    public static Mono<Void> run(Peers p, int root, Region local, Region[] outputs) {
        int n = p.size();
        int r = p.rank();
        int piece = local.length();
        int v = Math.floorMod(r - root, n);
        int span = v == 0 ? n : Math.min(Integer.lowestOneBit(v), n - v);
        if (span == 1) {
            // a leaf (or a world of one): send the piece as it is
            if (n == 1) {
                return Mono.fromRunnable(() -> outputs[r].copyFrom(local));
            }
            return Segments.send(p, parent(v, root, n), 0, local);
        }
        return Mono.usingWhen(
                Mono.fromCallable(() -> Region.allocate(span * piece)),
                staging -> {
                    Region all = new Region(staging, 0, span * piece);
                    all.sub(0, piece).copyFrom(local);
                    List<Mono<Void>> children = new ArrayList<>();
                    for (int mask = 1; mask < span; mask <<= 1) {
                        int child = v + mask;
                        int childSpan = Math.min(mask, n - child);
                        children.add(Segments.receive(p, (child + root) % n, 0, all.sub(mask * piece, childSpan * piece)));
                    }
                    Mono<Void> gathered = Mono.when(children);
                    if (v != 0) {
                        return gathered.then(Segments.send(p, parent(v, root, n), 0, all));
                    }
                    return gathered.then(Mono.fromRunnable(() -> {
                        for (int j = 0; j < n; j++) {
                            outputs[(j + root) % n].copyFrom(all.sub(j * piece, piece));
                        }
                    }));
                },
                staging -> Mono.fromRunnable(staging::release));
    }

    private static int parent(int v, int root, int n) {
        return (v - Integer.lowestOneBit(v) + root) % n;
    }
}
