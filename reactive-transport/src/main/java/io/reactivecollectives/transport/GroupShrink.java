package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link TcpProcessGroup#shrink()}: the survivors agree through the store on who is left and form
 * the next generation of the group.
 */
final class GroupShrink {

    private static final Logger log = LoggerFactory.getLogger(TcpProcessGroup.class);

    private GroupShrink() {
    }

    /**
     * @param old      the group that lost peers (closed once the survivors are known)
     * @param deadView per rank, whether {@code old} saw it die
     */
    static Mono<TcpProcessGroup> shrink(TcpProcessGroup old, Store store, GroupOptions options, String baseId,
                                        int generation, boolean[] deadView) {
        return Mono.defer(() -> {
            int rank = old.rank();
            int size = old.size();
            int gen = generation + 1;
            String newId = baseId + "@gen" + gen;
            String viewPrefix = "rc/" + options.groupId() + "/shrink/view/";
            StringBuilder mine = new StringBuilder();
            List<Integer> believedAlive = new ArrayList<>();
            boolean[] dead = deadView.clone();
            for (int p = 0; p < size; p++) {
                if (p != rank && dead[p]) {
                    mine.append(mine.length() == 0 ? "" : ",").append(p);
                } else if (p != rank) {
                    believedAlive.add(p);
                }
            }
            // a rank another survivor saw die is not waited for (this rank may not have noticed yet)
            Sinks.Many<Integer> seenDead = Sinks.many().replay().all();
            return store.set(viewPrefix + rank, mine.toString().getBytes(StandardCharsets.UTF_8))
                    .thenMany(Flux.fromIterable(believedAlive)
                            .flatMap(p -> Mono.firstWithSignal(store.get(viewPrefix + p, options.connectTimeout())
                                            .onErrorMap(e -> new PeerFailureException("shrink", rank, -1, p,
                                                    "shrink: rank " + p + " published no view of the survivors within "
                                                            + options.connectTimeout().toMillis() + " ms", e)),
                                    seenDead.asFlux().filter(d -> d == p).next().then(Mono.<byte[]>empty()))))
                    .doOnNext(bytes -> {
                        String v = new String(bytes, StandardCharsets.UTF_8);
                        for (String r : v.isEmpty() ? new String[0] : v.split(",")) {
                            int d = Integer.parseInt(r.trim());
                            if (d >= 0 && d < size && !dead[d]) {
                                dead[d] = true;
                                seenDead.tryEmitNext(d);
                            }
                        }
                    })
                    .then(Mono.defer(() -> {
                        if (dead[rank]) {
                            return Mono.error(new PeerFailureException("shrink", rank, -1, CollectiveException.NO_PEER,
                                    "shrink: another rank saw rank " + rank + " die; it is not among the survivors", null));
                        }
                        int newSize = 0;
                        int newRank = -1;
                        for (int p = 0; p < size; p++) {
                            if (!dead[p]) {
                                if (p == rank) {
                                    newRank = newSize;
                                }
                                newSize++;
                            }
                        }
                        old.close();
                        int nr = newRank;
                        int ns = newSize;
                        return TcpProcessGroup.connect(new PrefixStore("rc/" + newId + "/", store), nr, ns,
                                        options.withGroupId(newId))
                                .doOnNext(g -> {
                                    g.lineage(baseId, gen);
                                    log.info("group '{}' rank {}: shrank to '{}' rank {} of {}", options.groupId(), rank,
                                            newId, nr, ns);
                                });
                    }));
        });
    }
}
