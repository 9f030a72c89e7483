package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.runtime.GroupRuntime;
import reactor.core.publisher.Mono;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** The subgroups one rank's group made (c10d's new_group); closed with it. */
final class Subgroups {

    private final AtomicInteger made = new AtomicInteger();
    private final List<ProcessGroup> children = new CopyOnWriteArrayList<>();

    /**
     * A group of {@code ranks} meeting under {@code <groupId>/<k>} for the k-th call, joined through
     * {@code join}; empty on a rank outside.
     *
     * @param <G> the group type {@code join} emits
     */
    <G extends ProcessGroup> Mono<ProcessGroup> newGroup(GroupRuntime runtime, Store store, GroupOptions options,
                                                         List<Integer> ranks,
                                                         GroupJoin<G> join) {
        return Mono.defer(() -> {
            int[] members = CollectiveArguments.newGroup(ranks, runtime.size());
            CollectiveException refused = runtime.refusal("newGroup");
            if (refused != null) {
                return Mono.error(refused);
            }
            String id = options.groupId() + "/" + made.getAndIncrement();
            int index = Arrays.binarySearch(members, runtime.rank());
            if (index < 0) {
                return Mono.empty();
            }
            return join.join(new PrefixStore(id, store), index, members.length, options.withGroupId(id),
                            runtime.observer().recorder().job())
                    .doOnNext(children::add)
                    .map(g -> (ProcessGroup) g);
        });
    }

    void closeAll() {
        children.forEach(ProcessGroup::close);
    }
}
