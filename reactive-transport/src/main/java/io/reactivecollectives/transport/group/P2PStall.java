package io.reactivecollectives.transport.group;

/**
 * A point-to-point receive that has waited for a while, as the wait reports describe it: its op,
 * the rank it waits for ({@code -1} for a receive from any source not matched yet), its tag, its
 * size, how long it has waited and its timeout. A snapshot taken under the mailbox's lock
 * ({@link P2PMailbox#stalled}).
 *
 * @param op           {@code recv} or {@code recvAnySource}
 * @param source       the rank it waits for, {@code -1} for any
 * @param tag          the message's tag
 * @param bytes        the receive tensor's size
 * @param runningNanos how long it has waited
 * @param timeoutNanos its timeout, 0 when unknown
 */
public record P2PStall(String op, int source, int tag, long bytes, long runningNanos, long timeoutNanos) {
}
