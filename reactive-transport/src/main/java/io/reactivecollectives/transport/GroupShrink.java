package io.reactivecollectives.transport;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.failure.ShrinkPlanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.function.BiConsumer;

/**
 * A group's shrink: the membership of the next generation is decided once through
 * the store ({@link ShrinkPlanner}), then the members connect as the new group.
 */
final class GroupShrink {

    private static final Logger log = LoggerFactory.getLogger(GroupErrors.LOGGER);

    private GroupShrink() {
    }

    /**
     * @param old      the group that lost peers (closed once this rank is known to be a member)
     * @param job      the job {@code old} belongs to
     * @param seenDead per rank, whether {@code old} saw it die
     * @param join     how the next generation is joined
     * @param lineage  told, on the new group, the group's base name and its generation
     * @param <G>      the group type
     */
    static <G extends ProcessGroup> Mono<G> shrink(ProcessGroup old, String job, Store store, GroupOptions options,
                                                   String baseId, int generation, boolean[] seenDead,
                                                   GroupJoin<G> join, BiConsumer<G, Integer> lineage) {
        return Mono.defer(() -> ShrinkPlanner.plan(store, baseId, generation, old.rank(), old.size(), seenDead,
                        options.connectTimeout(), options.diagnostics().waitReportInterval(), options.minQuorum())
                .flatMap(plan -> {
                    old.close();
                    String newId = plan.groupId();
                    return join.join(new PrefixStore("rc/" + newId + "/", store), plan.newRank(),
                                    plan.size(), options.withGroupId(newId), job)
                            .doOnNext(g -> {
                                lineage.accept(g, plan.generation());
                                log.info("group '{}' rank {}: shrank to '{}' rank {} of {}", options.groupId(),
                                        old.rank(), newId, plan.newRank(), plan.size());
                            });
                }));
    }
}
