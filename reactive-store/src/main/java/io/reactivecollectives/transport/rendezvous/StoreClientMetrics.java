package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meters of {@link TcpStore} clients: the {@code rc.store.client.op} timer per op and outcome
 * ({@code ok}, {@code error}) and the {@code rc.store.client.cancelled} counter per op, made once per
 * op and registry.
 */
final class StoreClientMetrics {

    /** The meters of one op. */
    record OpMeters(Timer ok, Timer error, Counter cancelled) { }

    private static final Map<MeterRegistry, StoreClientMetrics> BY_REGISTRY = new ConcurrentHashMap<>();
    private final MeterRegistry registry;
    private final Map<String, OpMeters> byOp = new ConcurrentHashMap<>();

    private StoreClientMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    static StoreClientMetrics of(MeterRegistry registry) {
        return BY_REGISTRY.computeIfAbsent(registry, StoreClientMetrics::new);
    }

    OpMeters of(String op) {
        OpMeters m = byOp.get(op);
        return m != null ? m : byOp.computeIfAbsent(op, k -> new OpMeters(timer(op, "ok"), timer(op, "error"),
                Counter.builder("rc.store.client.cancelled").tag("op", op).register(registry)));
    }

    private Timer timer(String op, String outcome) {
        return Timer.builder("rc.store.client.op").description("TCP store request round trips")
                .tag("op", op).tag("outcome", outcome).register(registry);
    }
}
