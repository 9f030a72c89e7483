package io.reactivecollectives.transport.runtime;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the collective runtime reads of the group's options (the facade derives it from
 * {@code GroupOptions}, so nothing below the facade depends on the facade's package).
 *
 * @param groupId          the group's name
 * @param timeout          default collective timeout
 * @param segmentBytes     bytes per pipelined piece
 * @param pipelineDepth    pieces in flight per collective
 * @param maxFramePayload  largest payload of one frame
 * @param maxUnclaimedBytes budget of inbound frames buffered before asked for
 * @param checkCollectives whether the DETAIL fingerprint exchange runs before every collective
 * @param smallAllReduceBytes all-reduce switch point (recursive doubling up to it) at 2 ranks
 * @param smallBroadcastBytes broadcast switch point (binomial tree up to it) at 2 ranks
 * @param onCollectiveError called with every collective's error (error-handling mode)
 * @param resultScheduler  where results are delivered; null: on the event loop that produced them
 */
public record RuntimeSettings(String groupId, Duration timeout, int segmentBytes, int pipelineDepth,
                              int maxFramePayload, long maxUnclaimedBytes, boolean checkCollectives,
                              long smallAllReduceBytes, long smallBroadcastBytes,
                              Consumer<Throwable> onCollectiveError,
                              reactor.core.scheduler.Scheduler resultScheduler) {

    /** {@code m} delivering its result where the settings say. */
    public <T> reactor.core.publisher.Mono<T> deliver(reactor.core.publisher.Mono<T> m) {
        return resultScheduler == null ? m : m.publishOn(resultScheduler);
    }
}
