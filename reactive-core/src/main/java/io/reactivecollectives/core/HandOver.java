package io.reactivecollectives.core;

import reactor.core.publisher.Mono;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A resource opened on the way to a result that then owns it (a store server inside a rendezvous,
 * a rendezvous inside a group): until the result is handed over, whatever ends the chain (an
 * error, a cancel, including one that lands between the resource's opening and the next step)
 * closes the resource; once handed over, the result's owner closes it.
 */
public final class HandOver {

    private HandOver() {
    }

    /**
     * Opens a resource with {@code open}, then builds the result with {@code then}; closes the
     * resource with {@code close} unless the result was emitted.
     *
     * @param open  opens the resource (cold)
     * @param then  builds the result that takes the resource over
     * @param close closes the resource; may run on an event loop, so it must not block
     * @param <R>   the resource
     * @param <T>   the result
     * @return a cold {@code Mono} of the result
     */
    public static <R, T> Mono<T> openThen(Mono<R> open, Function<? super R, ? extends Mono<T>> then,
                                          Consumer<? super R> close) {
        Objects.requireNonNull(close, "close");
        return Mono.defer(() -> {
            AtomicReference<R> opened = new AtomicReference<>();
            AtomicBoolean handedOver = new AtomicBoolean();
            return open.doOnNext(opened::set)
                    .flatMap(then)
                    .doOnNext(result -> handedOver.set(true))
                    .doFinally(signal -> {
                        R r = opened.getAndSet(null);
                        if (r != null && !handedOver.get()) {
                            close.accept(r);
                        }
                    });
        });
    }
}
