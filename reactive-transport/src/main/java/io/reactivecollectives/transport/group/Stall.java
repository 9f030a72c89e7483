package io.reactivecollectives.transport.group;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;

/**
 * A local collective that has run for a while, as the wait reports describe it: its sequence number
 * and op, how long it has run, its timeout, and whom it waits for (the sources of its receives still
 * waiting for a frame, and the peers whose receipt it still awaits). A snapshot taken under the
 * mailbox's lock ({@link Mailbox#stalled}).
 *
 * @param sequence     the collective's sequence number
 * @param op           its name
 * @param runningNanos how long it has run
 * @param timeoutNanos its timeout, 0 when unknown
 * @param receivesFrom the peers its waiting receives expect a frame from
 * @param receiptsFrom the peers whose receipt it still awaits
 */
public record Stall(long sequence, String op, long runningNanos, long timeoutNanos, BitSet receivesFrom,
                    BitSet receiptsFrom) {

    /** The boxes of {@code boxes} owned by a running local collective open for {@code minNanos} or more, oldest first. */
    static List<Stall> of(Collection<CollectiveBox> boxes, long minNanos, long nowNanos) {
        List<Stall> out = new ArrayList<>();
        for (CollectiveBox b : boxes) {
            long running = nowNanos - b.openedNanos;
            if (b.op == null || b.ended || b.failure != null || running < minNanos) {
                continue;
            }
            BitSet receives = new BitSet();
            b.slots.waitingSources(receives);
            BitSet receipts = new BitSet();
            synchronized (b) {   // the receipts' lock (see Receipts), never held while the mailbox's is taken
                if (b.ackWaiter != null && b.acksAwaited != null) {
                    receipts.or(b.acksAwaited);
                    if (b.acksReceived != null) {
                        receipts.andNot(b.acksReceived);
                    }
                }
            }
            out.add(new Stall(b.sequence, b.op, running, b.timeoutNanos, receives, receipts));
        }
        out.sort((x, y) -> Long.compare(x.sequence, y.sequence));
        return out;
    }
}
