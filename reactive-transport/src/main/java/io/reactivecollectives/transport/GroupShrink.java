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
 * the store ({@link ShrinkPlanner}, under the group's {@link GroupOptions#minQuorum() quorum}), then
 * the members connect as the new group, which takes over the group's {@link GroupLineage}.
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
     * @param lineage  the generations so far; told of the new one once it has joined
     * @param adopt    told, on the new group, the lineage it continues (with the new generation)
     * @param <G>      the group type
     */
    static <G extends ProcessGroup> Mono<G> shrink(ProcessGroup old, String job, Store store, GroupOptions options,
                                                   String baseId, int generation, boolean[] seenDead,
                                                   GroupJoin<G> join, GroupLineage lineage,
                                                   BiConsumer<G, GroupLineage> adopt) {
        return Mono.defer(() -> ShrinkPlanner.plan(store, baseId, generation, old.rank(), old.size(), seenDead,
                        options.connectTimeout(), options.diagnostics().waitReportInterval(), options.minQuorum())
                .flatMap(plan -> {
                    lineage.leaving();
                    old.close();
                    String newId = plan.groupId();
                    return join.join(new PrefixStore("rc/" + newId + "/", store), plan.newRank(),
                                    plan.size(), options.withGroupId(newId), job)
                            .doOnNext(g -> {
                                adopt.accept(g, lineage.shrunk(plan));
                                log.info("group '{}' rank {}: shrank to '{}' rank {} of {}", options.groupId(),
                                        old.rank(), newId, plan.newRank(), plan.size());
                            })
                            .doOnError(lineage::failed);
                }));
    }
}
