package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import io.reactivecollectives.transport.group.Stall;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;

/**
 * The wait reports of one group's collectives: one periodic task per group (not per collective;
 * nothing on a collective's path), which every interval looks at the collectives that have run for
 * longer than the interval and says, for each, whom it waits for:
 * {@code group 'g' rank 0: allReduce seq 17 (4 MiB): waiting for rank 3 for 15 s (timeout in 4 min 45 s);
 * last data from rank 3: seq 16, ...}. Whom: the peers its receives wait on (from the mailbox, under
 * its lock), else the peers whose receipt it awaits; the last part is what this rank has heard of
 * every peer ({@code PeerFailures#progress()}), which shows a rank that is behind even when this
 * rank waits on another. At most {@value #MOST} collectives are named per report.
 */
final class CollectiveWaits implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(CollectiveWaits.class);
    static final int MOST = 4;

    private final GroupRuntime runtime;
    private final long intervalNanos;

    private CollectiveWaits(GroupRuntime runtime, long intervalNanos) {
        this.runtime = runtime;
        this.intervalNanos = intervalNanos;
    }

    /** Reports every {@code interval} until disposed (never when the interval is zero). */
    static Disposable start(GroupRuntime runtime, Duration interval) {
        return WaitReports.every(interval, new CollectiveWaits(runtime, interval.toNanos()));
    }

    @Override
    public void run() {
        if (runtime.isShut()) {
            return;
        }
        List<Stall> stalls = runtime.mailbox().stalled(intervalNanos, System.nanoTime());
        for (int i = 0; i < Math.min(MOST, stalls.size()); i++) {
            Notices.warn(LOG, describe(stalls.get(i)));
        }
        if (stalls.size() > MOST) {
            Notices.warn(LOG, prefix() + (stalls.size() - MOST) + " more collectives are waiting");
        }
    }

    private String prefix() {
        return "group '" + runtime.settings().groupId() + "' rank " + runtime.rank() + ": ";
    }

    /** One collective's line. */
    String describe(Stall s) {
        StringBuilder b = new StringBuilder(prefix()).append(s.op()).append(" seq ").append(s.sequence());
        FlightRecorder.Entry e = runtime.observer().recorder().find(s.sequence());
        long bytes = e == null ? 0 : e.inputBytes();
        if (bytes > 0) {
            b.append(" (").append(WaitReports.bytes(bytes)).append(')');
        }
        b.append(": ");
        if (!s.receivesFrom().isEmpty()) {
            b.append("waiting for ").append(WaitReports.ranks(list(s.receivesFrom())));
        } else if (!s.receiptsFrom().isEmpty()) {
            b.append("waiting for the receipts of ").append(WaitReports.ranks(list(s.receiptsFrom())));
        } else {
            b.append("no receive waiting (sending)");
        }
        b.append(" for ").append(WaitReports.duration(s.runningNanos()));
        if (s.timeoutNanos() > 0) {
            b.append(" (timeout in ").append(WaitReports.duration(s.timeoutNanos() - s.runningNanos())).append(')');
        }
        return b.append("; ").append(runtime.peerFailures().progress()).toString();
    }

    private static List<Integer> list(BitSet bits) {
        return bits.stream().boxed().toList();
    }
}
