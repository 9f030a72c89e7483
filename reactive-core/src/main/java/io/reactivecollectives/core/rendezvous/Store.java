package io.reactivecollectives.core.rendezvous;

import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A key-value store through which ranks find each other, as c10d's {@code Store}: every call is a
 * cold {@link Mono} that does nothing until subscribed, and never blocks the subscribing thread.
 *
 * <p>Keys are strings, values byte arrays. Calls that wait ({@link #get}, {@link #await}) wait up
 * to the store's {@link #timeout()} unless given their own, then fail with a
 * {@link StoreTimeoutException} naming the keys still missing and the time waited. A zero timeout
 * does not wait: the call answers if every key exists and fails with a {@link StoreTimeoutException}
 * at once otherwise. (PyTorch's TCPStore reads a zero timeout as no timeout at all and waits forever
 * for a missing key; here that is a deliberate difference, as a wait that cannot end hangs a job
 * instead of failing it: pass a long timeout to wait long.) A negative timeout is an
 * {@link IllegalArgumentException}. Implementations:
 * {@link HashStore} (one JVM), {@link PrefixStore} (a namespace over another store),
 * {@link FileStore} (processes sharing a file system) and the TCP store of {@code reactive-transport}.
 */
public interface Store extends AutoCloseable {

    /** The default wait, as c10d's (300 s). */
    Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);

    /**
     * How long {@link #get} and {@link #await} wait when not told otherwise.
     *
     * @return the default wait
     */
    Duration timeout();

    /**
     * Sets {@code key} to {@code value}, waking anyone waiting for it.
     *
     * @param key   the key
     * @param value the value
     * @return a cold {@code Mono} completing once the key is set
     */
    Mono<Void> set(String key, byte[] value);

    /**
     * The value of {@code key}, waiting until it exists, up to {@link #timeout()}.
     *
     * @param key the key
     * @return a cold {@code Mono} emitting the value
     */
    default Mono<byte[]> get(String key) {
        return get(key, timeout());
    }

    /**
     * The value of {@code key}, waiting until it exists, up to {@code timeout}.
     *
     * @param key     the key
     * @param timeout the longest wait
     * @return a cold {@code Mono} emitting the value, or failing with a {@link StoreTimeoutException}
     */
    Mono<byte[]> get(String key, Duration timeout);

    /**
     * Adds {@code delta} to the counter at {@code key} (absent counts as 0), atomically, and emits
     * the new value. The counter is stored as its decimal string, as c10d does.
     *
     * @param key   the key
     * @param delta the amount to add
     * @return a cold {@code Mono} emitting the new value
     */
    Mono<Long> add(String key, long delta);

    /**
     * Atomically sets {@code key} to {@code desired} if its current value equals {@code expected}
     * (an empty {@code expected} matches an absent key); emits the value the key holds afterwards
     * (c10d's {@code compare_set}).
     *
     * @param key      the key
     * @param expected the value the key must hold (empty: absent)
     * @param desired  the value to set
     * @return a cold {@code Mono} emitting the value held afterwards
     */
    Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired);

    /**
     * Completes when all {@code keys} exist; fails after {@code timeout} naming the missing ones.
     *
     * @param keys    the keys
     * @param timeout the longest wait
     * @return a cold {@code Mono} completing when the keys exist
     */
    Mono<Void> await(List<String> keys, Duration timeout);

    /**
     * Emits whether all {@code keys} exist now, without waiting.
     *
     * @param keys the keys
     * @return a cold {@code Mono} emitting whether all exist
     */
    Mono<Boolean> check(List<String> keys);

    /**
     * Deletes {@code key}; emits whether it existed.
     *
     * @param key the key
     * @return a cold {@code Mono} emitting whether the key existed
     */
    Mono<Boolean> delete(String key);

    /**
     * The number of keys in the store.
     *
     * @return a cold {@code Mono} emitting the number of keys
     */
    Mono<Long> numKeys();

    /**
     * The values of {@code keys}, in order, waiting for each up to {@link #timeout()}.
     *
     * @param keys the keys
     * @return a cold {@code Mono} emitting the values, in key order
     */
    Mono<List<byte[]>> multiGet(List<String> keys);

    /**
     * Sets every entry of {@code entries}.
     *
     * @param entries the keys and their values
     * @return a cold {@code Mono} completing once every entry is set
     */
    Mono<Void> multiSet(Map<String, byte[]> entries);

    /**
     * Appends {@code value} to the value at {@code key} (absent counts as empty); emits the new length.
     *
     * @param key   the key
     * @param value the value
     * @return a cold {@code Mono} emitting the new length
     */
    Mono<Long> append(String key, byte[] value);

    /**
     * Completes when this store can answer no more calls because its connection to the server
     * closed (the server's host is gone, or {@link #close()} was called), so that a wait on other
     * ranks through it can end at once instead of at its timeout. By default never: a store in
     * this process, or one that reconnects, does not end that way.
     *
     * @return a {@code Mono} that completes once the store's connection has closed
     */
    default Mono<Void> onClose() {
        return Mono.never();
    }

    /** Releases the store's resources (connections, files); further calls fail. */
    @Override
    void close();
}
