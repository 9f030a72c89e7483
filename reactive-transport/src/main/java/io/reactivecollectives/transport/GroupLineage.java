package io.reactivecollectives.transport;

import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.failure.GrowPlan;
import io.reactivecollectives.transport.failure.ShrinkPlan;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

import java.util.Arrays;

/**
 * The generations of one group on this rank, shared by every generation's {@link MeshProcessGroup}:
 * START when the group is connected, SHRINK when a shrink's new group has connected, GROW when a
 * join's has (a joiner's lineage begins with that GROW). It also keeps what every generation shares:
 * the job's root store (joins and shrinks are planned there) and the newest generation number ever
 * used, a join that failed to connect included, so that no group id is used twice. Completes when
 * the newest generation is closed other than by a shrink; fails when a shrink closed the old group but
 * could not join the new one. Events are delivered on the thread that made the change.
 */
final class GroupLineage {

    private final Sinks.Many<GenerationEvent> events = Sinks.many().replay().all();
    /** The newest generation (guarded by this). */
    private GenerationEvent current;
    /** Whether a shrink is closing the newest generation (its close does not end the stream). */
    private boolean shrinking;
    /** The newest generation number used, by a generation or by a join that failed to connect. */
    private int reserved;
    /** The last join ticket the generations answered. */
    private long handledTickets;
    private final Store root;
    private final String base;

    GroupLineage(String groupId, int size, Store root) {
        this(groupId, GenerationEvent.start(groupId, size), root, 0);
    }

    /**
     * A lineage of the group {@code base} beginning with {@code first} (a joiner's GROW), with joins
     * answered up to {@code handled}.
     */
    GroupLineage(String base, GenerationEvent first, Store root, long handled) {
        this.base = base;
        this.root = root;
        this.current = first;
        this.reserved = first.generation();
        this.handledTickets = handled;
        events.tryEmitNext(current);
    }

    /** {@return the group's id without its generation suffix} */
    String base() {
        return base;
    }

    /** {@return the job's root store, where joins and shrinks are planned} */
    Store root() {
        return root;
    }

    /** {@return the newest generation's members, by identity} */
    synchronized int[] identities() {
        return current.members();
    }

    /** {@return the newest generation number used (the next change takes the one after)} */
    synchronized int reserved() {
        return reserved;
    }

    /** A join's connect to generation {@code generation} failed: its number is not used again. */
    synchronized void burn(int generation) {
        reserved = Math.max(reserved, generation);
    }

    /** {@return the last join ticket answered} */
    synchronized long handledTickets() {
        return handledTickets;
    }

    /** The join tickets up to {@code handled} were answered (whether or not anyone joined). */
    synchronized void handled(long handled) {
        handledTickets = Math.max(handledTickets, handled);
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
        return next(new GenerationEvent(plan.groupId(), plan.generation(), GenerationEvent.Reason.SHRINK, members, lost));
    }

    /** The join planned by {@code plan} connected its new group: emits the GROW generation. */
    synchronized GroupLineage grown(GrowPlan plan) {
        handled(plan.handled());
        return next(new GenerationEvent(plan.groupId(), plan.generation(), GenerationEvent.Reason.GROW,
                plan.members(), new int[0], plan.joined()));
    }

    private GroupLineage next(GenerationEvent event) {
        current = event;
        reserved = Math.max(reserved, event.generation());
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
