package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.rendezvous.Store;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A store whose host is frozen for some calls: those never answer (as a TCP store whose server
 * process was stopped), the others go to {@code delegate}. Named as a TCP store at 10.9.8.7:29500.
 */
final class FrozenStore implements Store {

    private final Store delegate;
    private final Set<String> frozen;

    FrozenStore(Store delegate, Set<String> frozenCalls) {
        this.delegate = delegate;
        this.frozen = Set.copyOf(frozenCalls);
    }

    private <T> Mono<T> maybe(String call, Mono<T> answer) {
        return frozen.contains(call) ? Mono.never() : answer;
    }

    @Override
    public Duration timeout() {
        return delegate.timeout();
    }

    @Override
    public Mono<Void> set(String key, byte[] value) {
        return maybe("set", delegate.set(key, value));
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        return maybe("get", delegate.get(key, timeout));
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        return maybe("add", delegate.add(key, delta));
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        return maybe("compareSet", delegate.compareSet(key, expected, desired));
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        return maybe("await", delegate.await(keys, timeout));
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        return maybe("check", delegate.check(keys));
    }

    @Override
    public Mono<Boolean> delete(String key) {
        return maybe("delete", delegate.delete(key));
    }

    @Override
    public Mono<Long> numKeys() {
        return maybe("numKeys", delegate.numKeys());
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        return maybe("multiGet", delegate.multiGet(keys));
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        return maybe("multiSet", delegate.multiSet(entries));
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        return maybe("append", delegate.append(key, value));
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "FrozenStore[10.9.8.7:29500]";
    }
}
