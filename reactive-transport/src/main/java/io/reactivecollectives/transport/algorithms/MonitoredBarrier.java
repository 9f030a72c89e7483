package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.Unpooled;
import io.reactivecollectives.core.CollectiveTimeoutException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A barrier that names who is late (gloo's monitoredBarrier): every rank but 0 tells rank 0 it has
 * arrived (step 0) and waits for rank 0's release (step 1); rank 0 collects the arrivals of every
 * rank for up to {@code timeout}, then either releases every rank or fails with a
 * {@link CollectiveTimeoutException} naming the first rank that did not arrive, or with
 * {@code waitAllRanks} all of them: {@code monitoredBarrier[seq=3] rank 0: ranks [2, 3] did not
 * arrive at the barrier within 1000 ms}. The group then aborts the collective on the other ranks,
 * so they fail with rank 0's message instead of waiting.
 */
public final class MonitoredBarrier {

    private MonitoredBarrier() {
    }

    /** Completes once every rank has arrived (rank 0 released them), or fails on rank 0 after {@code timeout}. */
    public static Mono<Void> run(Peers p, Duration timeout, boolean waitAllRanks) {
        int n = p.size();
        if (n == 1) {
            return Mono.empty();
        }
        if (p.rank() != 0) {
            return Mono.defer(() -> p.send(0, 0, 0, Unpooled.EMPTY_BUFFER))
                    .then(p.receive(0, 1, 0).doOnNext(b -> b.release()).then());
        }
        return Mono.defer(() -> {
            List<Mono<Integer>> arrivals = new ArrayList<>(n - 1);
            for (int q = 1; q < n; q++) {
                int peer = q;
                arrivals.add(p.receive(peer, 0, 0).map(b -> {
                    b.release();
                    return peer;
                }));
            }
            return Flux.merge(arrivals)
                    .take(timeout)
                    .collect(TreeSet<Integer>::new, TreeSet::add)
                    .flatMap(arrived -> {
                        List<Integer> missing = new ArrayList<>();
                        for (int q = 1; q < n; q++) {
                            if (!arrived.contains(q)) {
                                missing.add(q);
                            }
                        }
                        if (missing.isEmpty()) {
                            List<Mono<Void>> releases = new ArrayList<>(n - 1);
                            for (int q = 1; q < n; q++) {
                                int peer = q;
                                releases.add(Mono.defer(() -> p.send(peer, 1, 0, Unpooled.EMPTY_BUFFER)));
                            }
                            return Mono.when(releases);
                        }
                        String who = waitAllRanks
                                ? "ranks " + missing + " did not arrive"
                                : "rank " + missing.get(0) + " did not arrive";
                        return Mono.error(new CollectiveTimeoutException(p.op(), p.rank(), p.sequence(), missing.get(0),
                                timeout, who + " at the barrier within " + timeout.toMillis() + " ms"));
                    });
        });
    }
}
