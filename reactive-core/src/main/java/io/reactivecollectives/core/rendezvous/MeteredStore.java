package io.reactivecollectives.core.rendezvous;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Store} that times every operation of another with Micrometer and otherwise passes its
 * signals through unchanged.
 *
 * <p>One timer, {@value #TIMER}, tagged
 * <ul>
 *   <li>{@code op}: {@code set}, {@code get}, {@code add}, {@code compareSet}, {@code await},
 *       {@code check}, {@code delete}, {@code numKeys}, {@code multiGet}, {@code multiSet},
 *       {@code append};</li>
 *   <li>{@code outcome}: {@code success}, {@code timeout} (a {@link StoreTimeoutException}),
 *       {@code error} (any other error) or {@code cancelled} (the subscriber cancelled first);</li>
 *   <li>{@code store}: a name for the store (by default the delegate's class name, e.g.
 *       {@code HashStore}), plus any extra tags given.</li>
 * </ul>
 * The time runs from subscription to the terminal signal (or cancellation), so a waiting
 * {@code get} is timed including its wait.
 */
public final class MeteredStore implements Store {

    /** The timer's name. */
    public static final String TIMER = "rc.store.op";

    private final Store delegate;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    /**
     * Times {@code delegate} into {@link Metrics#globalRegistry}.
     *
     * @param delegate the store to time
     */
    public MeteredStore(Store delegate) {
        this(delegate, Metrics.globalRegistry);
    }

    /**
     * Times {@code delegate} into {@code registry}, tagged {@code store=<delegate's class name>}.
     *
     * @param delegate the store to time
     * @param registry the registry the timer goes to
     */
    public MeteredStore(Store delegate, MeterRegistry registry) {
        this(delegate, registry, Tags.of("store", delegate.getClass().getSimpleName()));
    }

    /**
     * Times {@code delegate} into {@code registry} with {@code tags} added to every measurement.
     *
     * @param delegate the store to time
     * @param registry the registry the timer goes to
     * @param tags     tags added to every measurement
     */
    public MeteredStore(Store delegate, MeterRegistry registry, Iterable<Tag> tags) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /**
     * The store being timed.
     *
     * @return the delegate
     */
    public Store delegate() {
        return delegate;
    }

    private <T> Mono<T> timed(String op, Mono<T> call) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            AtomicBoolean recorded = new AtomicBoolean();
            return call
                    .doOnSuccess(v -> record(op, "success", start, recorded))
                    .doOnError(e -> record(op, e instanceof StoreTimeoutException ? "timeout" : "error", start, recorded))
                    .doOnCancel(() -> record(op, "cancelled", start, recorded));
        });
    }

    private void record(String op, String outcome, long start, AtomicBoolean recorded) {
        if (recorded.compareAndSet(false, true)) {
            timers.computeIfAbsent(op + '/' + outcome, k -> Timer.builder(TIMER)
                            .description("Store operations, from subscription to completion")
                            .tags(tags)
                            .tag("op", op)
                            .tag("outcome", outcome)
                            .register(registry))
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public Duration timeout() {
        return delegate.timeout();
    }

    @Override
    public Mono<Void> set(String key, byte[] value) {
        return timed("set", delegate.set(key, value));
    }

    @Override
    public Mono<byte[]> get(String key) {
        return timed("get", delegate.get(key));
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        return timed("get", delegate.get(key, timeout));
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        return timed("add", delegate.add(key, delta));
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        return timed("compareSet", delegate.compareSet(key, expected, desired));
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        return timed("await", delegate.await(keys, timeout));
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        return timed("check", delegate.check(keys));
    }

    @Override
    public Mono<Boolean> delete(String key) {
        return timed("delete", delegate.delete(key));
    }

    @Override
    public Mono<Long> numKeys() {
        return timed("numKeys", delegate.numKeys());
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        return timed("multiGet", delegate.multiGet(keys));
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        return timed("multiSet", delegate.multiSet(entries));
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        return timed("append", delegate.append(key, value));
    }

    /** Closes the delegate. */
    @Override
    public void close() {
        delegate.close();
    }

    /** {@return when the delegate's connection closed} */
    @Override
    public Mono<Void> onClose() {
        return delegate.onClose();
    }

    @Override
    public String toString() {
        return "MeteredStore[" + delegate + "]";
    }
}
