package io.reactivecollectives.transport;

/**
 * Where a group's operations deliver their results ({@code onNext}, {@code onComplete},
 * {@code onError}), and so where the code a user chains after them ({@code .map}, {@code .flatMap},
 * {@code .doOnNext}) runs.
 */
public enum ResultDelivery {

    /**
     * On the library's result threads ({@code rc-results-N}, a bounded pool that allows blocking):
     * the default. User code after a collective, however long it runs, never delays the network
     * threads, so heartbeats, other collectives and the peers' data keep moving. Costs one thread
     * hand-off per result ({@code perf/RESULTS.md} has the figure).
     */
    LIBRARY_THREADS,

    /**
     * On the network event loop that completed the operation: the lowest latency, for code that
     * returns at once. A chained step that computes or blocks for long holds up every connection
     * served by that loop; held long enough, the peers declare this rank dead (missed heartbeats).
     */
    EVENT_LOOP
}
