package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import io.reactivecollectives.transport.group.P2PStall;
import io.reactivecollectives.transport.group.Stall;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;

/**
 * The wait reports of one group's collectives: one periodic task per group (not per collective;
 * nothing on a collective's path), which every interval looks at the collectives that have run for
 * longer than the interval and says, for each, whom it waits for:
 * {@code group 'g' rank 0: allReduce seq 17 (4 MiB): waiting for rank 3 for 15 s (timeout in 4 min 45 s);
 * last data from rank 3: seq 16, ...}. Whom: the peers its receives wait on (from the mailbox, under
 * its lock), else the peers whose receipt it awaits; the last part is what this rank has heard of
 * every peer ({@code PeerFailures#progress()}), which shows a rank that is behind even when this
 * rank waits on another. Point-to-point receives that waited longer than the interval are named too
 * ({@code group 'g' rank 0: recv from rank 2 tag 7 (64 B): waiting for rank 2 for 5 s (timeout in 55 s)};
 * {@code recvAnySource tag 7 (64 B): waiting for any rank ...}); sends are not, as a send completes
 * once its frames are written, without waiting for the peer's receive. At most {@value #MOST}
 * collectives, and {@value #MOST} receives, are named per report.
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
        say(runtime.mailbox().stalled(intervalNanos, System.nanoTime()), this::describe, "collectives");
        say(runtime.p2p().stalled(intervalNanos, System.nanoTime()), this::describe, "receives");
    }

    /** The first {@value #MOST} waits, one line each, then how many more. */
    private <T> void say(List<T> waits, Function<T, String> line, String what) {
        for (int i = 0; i < Math.min(MOST, waits.size()); i++) {
            Notices.warn(LOG, line.apply(waits.get(i)));
        }
        if (waits.size() > MOST) {
            Notices.warn(LOG, prefix() + (waits.size() - MOST) + " more " + what + " are waiting");
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
        return timing(b, s.runningNanos(), s.timeoutNanos()).append("; ").append(runtime.peerFailures().progress()).toString();
    }

    /** One point-to-point receive's line. */
    String describe(P2PStall r) {
        StringBuilder b = new StringBuilder(prefix()).append(r.op());
        if (r.source() >= 0 && r.op().equals(OpType.RECV.displayName())) {
            b.append(" from rank ").append(r.source());
        }
        b.append(" tag ").append(r.tag()).append(" (").append(WaitReports.bytes(r.bytes())).append("): waiting for ")
                .append(r.source() < 0 ? "any rank" : "rank " + r.source());
        return timing(b, r.runningNanos(), r.timeoutNanos()).toString();
    }

    /** {@code for 15 s (timeout in 45 s)}. */
    private static StringBuilder timing(StringBuilder b, long runningNanos, long timeoutNanos) {
        b.append(" for ").append(WaitReports.duration(runningNanos));
        if (timeoutNanos > 0) {
            b.append(" (timeout in ").append(WaitReports.duration(timeoutNanos - runningNanos)).append(')');
        }
        return b;
    }

    private static List<Integer> list(BitSet bits) {
        return bits.stream().boxed().toList();
    }
}
