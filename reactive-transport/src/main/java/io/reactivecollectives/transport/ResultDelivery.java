package io.reactivecollectives.transport;

/**
 * Where a group's operations deliver their results ({@code onNext}, {@code onComplete},
 * {@code onError}), and so where the code a user chains after them ({@code .map}, {@code .flatMap},
 * {@code .doOnNext}) runs.
 *
 * <p>Either way, liveness does not depend on that code: heartbeats travel on connections and an
 * event loop of their own ({@code rc-liveness}), so a long computation after a collective never
 * makes the peers declare this rank dead.
 */
public enum ResultDelivery {

    /**
     * On the network event loop that completed the operation ({@code rc-io-N}, or
     * {@code rc-io-shm-<group>-<rank>}, the thread that reads shared memory from the ranks of this
     * host): the default, and
     * the lowest latency (no thread hand-off). Code chained there should return quickly: while it
     * runs, that loop's other connections wait (they are delayed, never failed). The loops are
     * Reactor {@code NonBlocking} threads, so a {@code block()} there fails at once instead of hanging.
     */
    EVENT_LOOP,

    /**
     * On the library's result threads ({@code rc-results-N}, a bounded pool that allows blocking):
     * chained code, however long it runs or blocks, never delays any network thread. Costs one
     * thread hand-off per result ({@code perf/RESULTS.md} has the figure).
     */
    LIBRARY_THREADS
}
