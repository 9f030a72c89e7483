package io.reactivecollectives.core;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;

/**
 * A group's object collectives, one at a time and numbered: each takes several tensor collectives
 * in a row, and two of them running at once could interleave their rounds differently on
 * different ranks. A call subscribed while another runs waits for it (cancelling it, or its end,
 * lets the next go); calls are numbered in the order they are subscribed, and the number travels
 * in the first round, so ranks that subscribed in different orders fail instead of mixing data.
 * Cancelling a call never leaves the ranks out of step ({@link #enqueue}).
 */
final class ObjectCalls {

    private static final Map<ProcessGroup, ObjectCalls> GROUPS = Collections.synchronizedMap(new WeakHashMap<>());

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ObjectCalls.class);

    private long next;
    private Mono<Void> tail = Mono.empty();

    private ObjectCalls() {
    }

    static ObjectCalls of(ProcessGroup group) {
        return GROUPS.computeIfAbsent(group, g -> new ObjectCalls());
    }

    /**
     * Runs {@code body} with this call's sequence number once every call subscribed before it has
     * ended. A call is several tensor collectives in a row, and every rank must take part in the same
     * number of them, so cancelling never cuts one short: a call cancelled once its body started runs
     * to its end in the background (its result dropped), and one cancelled while it waits for its
     * turn still takes it, as {@code cancelled} (which announces the cancel in the first round, so
     * that the other ranks' copies fail at once and every rank moves on in step).
     */
    <R> Mono<R> enqueue(LongFunction<Mono<R>> body, LongFunction<Mono<R>> cancelled) {
        return Mono.create(sink -> {
            Sinks.Empty<Void> done = Sinks.empty();
            Mono<Void> before;
            long seq;
            synchronized (this) {
                before = tail;
                tail = done.asMono();
                seq = next++;
            }
            AtomicBoolean gone = new AtomicBoolean();
            sink.onCancel(() -> gone.set(true));   // the run below is never disposed: see above
            before.then(Mono.defer(() -> gone.get() ? cancelled.apply(seq) : body.apply(seq)))
                    .doFinally(s -> done.tryEmitEmpty())
                    .contextWrite(sink.contextView())       // the caller's context (a tracing parent) goes along
                    .subscribe(v -> {
                        if (!gone.get()) {
                            sink.success(v);
                        }
                    }, e -> {
                        if (!gone.get()) {
                            sink.error(e);
                        } else {
                            LOG.debug("object call {} ended after its subscriber cancelled: {}", seq, e.toString());
                        }
                    }, () -> {
                        if (!gone.get()) {
                            sink.success();
                        }
                    });
        });
    }
}
