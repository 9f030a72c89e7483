package io.reactivecollectives.transport;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.Store;
import reactor.core.publisher.Mono;

/**
 * How a group joins a new group of its job (a subgroup, a shrunk generation): the facade hands its
 * own {@code connect} to {@link Subgroups} and {@link GroupShrink}, which therefore never name it.
 *
 * @param <G> the group type the join emits
 */
@FunctionalInterface
interface GroupJoin<G extends ProcessGroup> {

    /**
     * Joins as {@code rank} of {@code size} ranks meeting through {@code store}.
     *
     * @param store   the new group's store (a prefix of the old one's)
     * @param rank    this rank in the new group
     * @param size    the new group's size
     * @param options the new group's options
     * @param job     the job the new group belongs to
     * @return a cold {@code Mono} emitting the connected group
     */
    Mono<G> join(Store store, int rank, int size, GroupOptions options, String job);
}
