package io.reactivecollectives.transport;

import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.failure.ShrinkPlanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * {@link MeshProcessGroup#shrink()}: the membership of the next generation is decided once through
 * the store ({@link ShrinkPlanner}), then the members connect as the new group.
 */
final class GroupShrink {

    private static final Logger log = LoggerFactory.getLogger(MeshProcessGroup.class);

    private GroupShrink() {
    }

    /**
     * @param old      the group that lost peers (closed once this rank is known to be a member)
     * @param seenDead per rank, whether {@code old} saw it die
     */
    static Mono<MeshProcessGroup> shrink(MeshProcessGroup old, Store store, GroupOptions options, String baseId,
                                        int generation, boolean[] seenDead) {
        return Mono.defer(() -> ShrinkPlanner.plan(store, baseId, generation, old.rank(), old.size(), seenDead,
                        options.connectTimeout(), options.diagnostics().waitReportInterval())
                .flatMap(plan -> {
                    old.close();
                    String newId = plan.groupId();
                    return MeshProcessGroup.connect(new PrefixStore("rc/" + newId + "/", store), plan.newRank(),
                                    plan.size(), options.withGroupId(newId), old.flightRecorder().job())
                            .doOnNext(g -> {
                                g.lineage(baseId, plan.generation());
                                log.info("group '{}' rank {}: shrank to '{}' rank {} of {}", options.groupId(),
                                        old.rank(), newId, plan.newRank(), plan.size());
                            });
                }));
    }
}
