package io.reactivecollectives.djl;

import reactor.core.publisher.Mono;

import java.util.concurrent.atomic.AtomicReference;

/** One operation of a trainer at a time: a second one started while the first runs fails at once. */
final class StepGuard {

    private final AtomicReference<String> running = new AtomicReference<>();

    /** {@code work}, unless another operation is running (then an {@link IllegalStateException} naming both). */
    <T> Mono<T> run(String operation, Mono<T> work) {
        return Mono.defer(() -> {
            String other = running.compareAndExchange(null, operation);
            if (other != null) {
                return Mono.error(new IllegalStateException("DistributedTrainer." + operation + ": " + other
                        + " is still running; wait for it (one step at a time per trainer)"));
            }
            // before the result reaches downstream (a Mono's value is its end), so a chained next step may start at once
            return work.doOnTerminate(() -> running.set(null)).doOnCancel(() -> running.set(null));
        });
    }
}
