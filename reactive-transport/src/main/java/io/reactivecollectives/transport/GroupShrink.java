package io.reactivecollectives.transport;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.failure.ShrinkPlanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.function.Supplier;

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
     * @param old      the group that lost peers
     * @param job      the job {@code old} belongs to
     * @param seenDead per rank, whether {@code old} saw it die
     * @param leave    closes {@code old} once this rank is known to be a member, handing over what
     *                 it would have closed after itself (closed here if the join fails)
     * @param join     how the next generation is joined
     * @param lineage  the generations so far (the group's base id, the root store where plans and the
     *                 new group's keys live, the newest generation number); told of the new one once
     *                 it has joined
     * @param adopt    told, on the new group, the lineage it continues and the resources it now owns
     * @param <G>      the group type
     */
    static <G extends ProcessGroup> Mono<G> shrink(ProcessGroup old, String job, GroupOptions options,
                                                   boolean[] seenDead, Supplier<List<AutoCloseable>> leave,
                                                   GroupJoin<G> join, GroupLineage lineage, Adopt<G> adopt) {
        Store store = lineage.root();
        return Mono.defer(() -> ShrinkPlanner.plan(store, lineage.base(), lineage.reserved(), old.rank(), old.size(), seenDead,
                        options.connectTimeout(), options.diagnostics().waitReportInterval(), options.minQuorum())
                .flatMap(plan -> {
                    lineage.leaving();
                    List<AutoCloseable> carried = leave.get();
                    String newId = plan.groupId();
                    return join.join(new PrefixStore("rc/" + newId + "/", store), plan.newRank(),
                                    plan.size(), options.withGroupId(newId), job)
                            .doOnNext(g -> {
                                adopt.adopt(g, lineage.shrunk(plan), carried);
                                log.info("group '{}' rank {}: shrank to '{}' rank {} of {}", options.groupId(),
                                        old.rank(), newId, plan.newRank(), plan.size());
                            })
                            .doOnError(e -> {
                                lineage.failed(e);
                                GroupResources.closeAll(carried);
                            });
                }));
    }

    /**
     * Makes a newly connected group the newest generation of a lineage.
     *
     * @param <G> the group type
     */
    @FunctionalInterface
    interface Adopt<G> {
        /**
         * @param group     the new generation's group on this rank
         * @param lineage   the lineage it continues (its newest generation is the group's)
         * @param resources what it now closes after itself
         */
        void adopt(G group, GroupLineage lineage, List<AutoCloseable> resources);
    }
}
