package io.reactivecollectives.core.rendezvous;

import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A namespace over another {@link Store}, as c10d's {@code PrefixStore}: every key {@code k} is
 * stored as {@code prefix + "/" + k} in the {@link #underlying()} store, so groups or subsystems
 * sharing one store do not see each other's keys. Signals are the underlying store's; a
 * {@link StoreTimeoutException} names the full (prefixed) keys, so the namespace shows.
 *
 * <p>{@link #numKeys()} counts every key of the underlying store, as c10d does (a store cannot
 * list its keys). {@link #close()} does not close the underlying store, which its owner closes.
 */
public final class PrefixStore implements Store {

    private final String prefix;
    private final Store underlying;

    /**
     * A view of {@code underlying} whose keys all start with {@code prefix + "/"}.
     *
     * @param prefix     the namespace, without the trailing {@code "/"}
     * @param underlying the store the keys live in
     */
    public PrefixStore(String prefix, Store underlying) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.underlying = Objects.requireNonNull(underlying, "underlying");
    }

    /**
     * The namespace, without the trailing {@code "/"}.
     *
     * @return the prefix
     */
    public String prefix() {
        return prefix;
    }

    /**
     * The store the keys really live in (which may itself be a {@code PrefixStore}).
     *
     * @return the underlying store
     */
    public Store underlying() {
        return underlying;
    }

    private String k(String key) {
        return prefix + "/" + Objects.requireNonNull(key, "key");
    }

    private List<String> k(List<String> keys) {
        return keys.stream().map(this::k).toList();
    }

    @Override
    public Duration timeout() {
        return underlying.timeout();
    }

    @Override
    public Mono<Void> set(String key, byte[] value) {
        return underlying.set(k(key), value);
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        return underlying.get(k(key), timeout);
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        return underlying.add(k(key), delta);
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        return underlying.compareSet(k(key), expected, desired);
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        return underlying.await(k(keys), timeout);
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        return underlying.check(k(keys));
    }

    @Override
    public Mono<Boolean> delete(String key) {
        return underlying.delete(k(key));
    }

    @Override
    public Mono<Long> numKeys() {
        return underlying.numKeys();
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        return underlying.multiGet(k(keys));
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        Map<String, byte[]> prefixed = new LinkedHashMap<>();
        entries.forEach((key, value) -> prefixed.put(k(key), value));
        return underlying.multiSet(prefixed);
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        return underlying.append(k(key), value);
    }

    /** {@return when the underlying store's connection closed} */
    @Override
    public Mono<Void> onClose() {
        return underlying.onClose();
    }

    /** Does nothing: the underlying store belongs to whoever created it. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "PrefixStore[" + prefix + " over " + underlying + "]";
    }
}
