package io.reactivecollectives.transport;

import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.transport.failure.ShrinkPlan;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import java.util.Arrays;

/**
 * The generations of one group on this rank, shared by every generation's {@link MeshProcessGroup}:
 * START when the group is connected, SHRINK when a shrink's new group has connected. Completes when
 * the newest generation is closed other than by a shrink; fails when a shrink closed the old group but
 * could not join the new one. Events are delivered on the thread that made the change.
 */
final class GroupLineage {

    private final Sinks.Many<GenerationEvent> events = Sinks.many().replay().all();
    /** The newest generation (guarded by this). */
    private GenerationEvent current;
    /** Whether a shrink is closing the newest generation (its close does not end the stream). */
    private boolean shrinking;

    GroupLineage(String groupId, int size) {
        current = GenerationEvent.start(groupId, size);
        events.tryEmitNext(current);
    }

    Flux<GenerationEvent> events() {
        return events.asFlux();
    }

    /** The newest generation's number. */
    synchronized int newest() {
        return current.generation();
    }

    /** A shrink is about to close the newest generation. */
    synchronized void leaving() {
        shrinking = true;
    }

    /** The shrink planned by {@code plan} joined its new group: emits the SHRINK generation. */
    synchronized GroupLineage shrunk(ShrinkPlan plan) {
        int[] previous = current.members();
        int[] members = Arrays.stream(plan.members()).map(i -> previous[i]).toArray();
        int[] lost = Arrays.stream(previous).filter(r -> Arrays.binarySearch(members, r) < 0).toArray();
        current = new GenerationEvent(plan.groupId(), plan.generation(), GenerationEvent.Reason.SHRINK, members, lost);
        shrinking = false;
        events.tryEmitNext(current);
        return this;
    }

    /** Generation {@code generation} was closed: the stream ends when it was the newest and no shrink closed it. */
    synchronized void closed(int generation) {
        if (!shrinking && generation == current.generation()) {
            events.tryEmitComplete();
        }
    }

    /** A shrink closed the old generation and failed to join the new one: the stream fails with its error. */
    synchronized void failed(Throwable error) {
        if (shrinking) {
            shrinking = false;
            events.tryEmitError(error);
        }
    }
}
