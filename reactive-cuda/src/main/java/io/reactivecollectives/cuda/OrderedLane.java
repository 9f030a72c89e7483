package io.reactivecollectives.cuda;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;

import java.util.function.Supplier;

/**
 * Runs operations one at a time in the order they were subscribed: an operation starts when the
 * one subscribed before it has terminated. A host-staged collective issues one network collective
 * per chunk over time; running whole operations in subscription order keeps the sequence of
 * network collectives the same on every rank. An operation cancelled while it waits does not let
 * the next one overtake the operation still running before it.
 */
final class OrderedLane {

    private Mono<Void> tail = Mono.empty();

    <T> Mono<T> run(Supplier<Mono<T>> op) {
        return Mono.defer(() -> {
            Sinks.Empty<Void> done = Sinks.empty();
            Mono<Void> prev = enter(done);
            return prev.then(Mono.defer(op)).doFinally(s -> leave(s, prev, done));
        });
    }

    <T> Flux<T> runMany(Supplier<Flux<T>> op) {
        return Flux.defer(() -> {
            Sinks.Empty<Void> done = Sinks.empty();
            Mono<Void> prev = enter(done);
            return prev.thenMany(Flux.defer(op)).doFinally(s -> leave(s, prev, done));
        });
    }

    private synchronized Mono<Void> enter(Sinks.Empty<Void> done) {
        Mono<Void> prev = tail;
        tail = done.asMono();
        return prev;
    }

    private static void leave(SignalType s, Mono<Void> prev, Sinks.Empty<Void> done) {
        if (s == SignalType.CANCEL) {
            // the previous operation may still run: the next one waits for it too
            prev.subscribe(null, e -> done.tryEmitEmpty(), done::tryEmitEmpty);
        } else {
            done.tryEmitEmpty();
        }
    }
}
