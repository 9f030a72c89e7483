package io.reactivecollectives.core;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.LongFunction;

/**
 * A group's object collectives, one at a time and numbered: each takes several tensor collectives
 * in a row, and two of them running at once could interleave their rounds differently on
 * different ranks. A call subscribed while another runs waits for it (cancelling it, or its end,
 * lets the next go); calls are numbered in the order they are subscribed, and the number travels
 * in the first round, so ranks that subscribed in different orders fail instead of mixing data.
 */
final class ObjectCalls {

    private static final Map<ProcessGroup, ObjectCalls> GROUPS = Collections.synchronizedMap(new WeakHashMap<>());

    private long next;
    private Mono<Void> tail = Mono.empty();

    private ObjectCalls() {
    }

    static ObjectCalls of(ProcessGroup group) {
        return GROUPS.computeIfAbsent(group, g -> new ObjectCalls());
    }

    /** Runs {@code body} with this call's sequence number once every call subscribed before it has ended. */
    <R> Mono<R> enqueue(LongFunction<Mono<R>> body) {
        return Mono.defer(() -> {
            Sinks.Empty<Void> done = Sinks.empty();
            Mono<Void> before;
            long seq;
            synchronized (this) {
                before = tail;
                tail = done.asMono();
                seq = next++;
            }
            return before.then(Mono.defer(() -> body.apply(seq))).doFinally(s -> done.tryEmitEmpty());
        });
    }
}
