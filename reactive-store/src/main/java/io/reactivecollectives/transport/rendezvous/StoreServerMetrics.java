package io.reactivecollectives.transport.rendezvous;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactivecollectives.core.rendezvous.KeyValueWaiters;
import io.reactivecollectives.store.wire.FrameMemoryBudget;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters of one {@link TcpStoreServer} (open connections, rejected frames, authentication
 * failures, rejected connections, the frame memory budget in use and the connections waiting for it)
 * and their meters ({@code rc.store.server.*}, tagged with the port), registered once the
 * port is known and removed on close, so that a later server on the same port gets meters of its
 * own.
 */
final class StoreServerMetrics {

    final AtomicInteger connections = new AtomicInteger();
    final AtomicLong rejectedFrames = new AtomicLong();
    final AtomicLong authFailures = new AtomicLong();
    /** Connections closed before being served: over the limit, or no handshake in time. */
    final AtomicLong rejectedConnections = new AtomicLong();
    /** What incomplete frames hold, across connections. */
    final FrameMemoryBudget frameMemory;
    private final List<Meter> meters = new CopyOnWriteArrayList<>();
    private volatile MeterRegistry registry;

    StoreServerMetrics(FrameMemoryBudget frameMemory) {
        this.frameMemory = frameMemory;
    }

    /** Registers the meters of the server on {@code port}, the pending waits read from {@code kv}. */
    void register(MeterRegistry reg, int port, KeyValueWaiters<?> kv) {
        String p = Integer.toString(port);
        meters.add(Gauge.builder("rc.store.server.pending.waits", kv, KeyValueWaiters::pendingWaits)
                .tag("port", p).register(reg));
        meters.add(Gauge.builder("rc.store.server.connections", connections, AtomicInteger::get)
                .tag("port", p).register(reg));
        meters.add(FunctionCounter.builder("rc.store.server.rejected.frames", rejectedFrames, AtomicLong::get)
                .tag("port", p).register(reg));
        meters.add(FunctionCounter.builder("rc.store.server.auth.failures", authFailures, AtomicLong::get)
                .tag("port", p).register(reg));
        meters.add(FunctionCounter.builder("rc.store.server.rejected.connections", rejectedConnections, AtomicLong::get)
                .tag("port", p).register(reg));
        meters.add(Gauge.builder("rc.store.server.frame.memory", frameMemory, FrameMemoryBudget::used)
                .tag("port", p).baseUnit("bytes").register(reg));
        meters.add(Gauge.builder("rc.store.server.frame.memory.waiting", frameMemory, FrameMemoryBudget::waiting)
                .tag("port", p).register(reg));
        registry = reg;
    }

    /** Counts a new connection unless {@code max} are open already; whether it may be served. */
    boolean admit(int max) {
        while (true) {
            int n = connections.get();
            if (n >= max) {
                return false;
            }
            if (connections.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Removes the meters again. */
    void remove() {
        MeterRegistry reg = registry;
        if (reg != null) {
            meters.forEach(reg::remove);
            meters.clear();
        }
    }
}
