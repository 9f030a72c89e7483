package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.testing.StandardErrorCapture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Signal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Never silent: while ranks wait for each other, each says every interval (here 1 s) whom it waits
 * for and for how long, and stops once the wait ends: at the rendezvous (a rank that joins late) and
 * in a collective (a rank that never calls it).
 */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class WaitReportsTest {

    private static final Duration T = Duration.ofSeconds(60);
    private static final Duration EVERY = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    private static long count(String text, String part) {
        return text.lines().filter(l -> l.contains(part)).count();
    }

    @Test
    void theRendezvousNamesTheRankThatHasNotJoinedUntilItDoes() throws Exception {
        HashStore store = new HashStore(T);
        GroupOptions o = GroupOptions.defaults().withGroupId("late-joiner").withWaitReportInterval(EVERY);
        List<MeshProcessGroup> groups = new java.util.ArrayList<>();
        String waiting;
        String afterwards;
        try (StandardErrorCapture err = new StandardErrorCapture()) {
            CompletableFuture<MeshProcessGroup> g0 = MeshProcessGroup.connect(store, 0, 3, o).toFuture();
            CompletableFuture<MeshProcessGroup> g1 = MeshProcessGroup.connect(store, 1, 3, o).toFuture();
            Thread.sleep(3_500);   // rank 2 joins 3.5 s late
            groups.add(MeshProcessGroup.connect(store, 2, 3, o).block(T));
            groups.add(g0.get(60, TimeUnit.SECONDS));
            groups.add(g1.get(60, TimeUnit.SECONDS));
            waiting = err.text();
            Thread.sleep(2_500);   // connected: no more reports
            afterwards = err.text().substring(waiting.length());
        } finally {
            groups.forEach(MeshProcessGroup::close);
            store.close();
        }
        for (int r = 0; r < 2; r++) {
            String line = "group 'late-joiner' rank " + r + ": rendezvous: waiting for rank 2 to join (";
            assertTrue(count(waiting, line) >= 2, "rank " + r + " named rank 2 every second:\n" + waiting);
        }
        assertTrue(waiting.contains(" of 60 s)"), waiting);
        assertEquals(0, count(afterwards, "late-joiner"), "no report once connected:\n" + afterwards);
    }

    @Test
    void aCollectiveStuckOnARankThatNeverCallsNamesItUntilItTimesOut() throws Exception {
        GroupOptions o = GroupOptions.defaults().withGroupId("stuck").withWaitReportInterval(EVERY)
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpDirectory(dir));
        LocalCluster c = LocalCluster.start(3, o).block(T);
        Tensor t0 = Tensor.zeros(DType.FLOAT32, 1 << 20);   // 4 MiB: the ring, rank 0 receives from rank 2
        Tensor t1 = Tensor.zeros(DType.FLOAT32, 1 << 20);
        String during;
        String afterwards;
        try (StandardErrorCapture err = new StandardErrorCapture()) {
            CollectiveOptions timeout = CollectiveOptions.timeout(Duration.ofMillis(4_500));
            List<Signal<Tensor>> sig = Flux.mergeSequential(   // rank 2 never calls it
                            c.group(0).allReduce(t0, ReduceOp.SUM, timeout).materialize(),
                            c.group(1).allReduce(t1, ReduceOp.SUM, timeout).materialize())
                    .collectList().block(T);
            for (Signal<Tensor> s : sig) {
                assertInstanceOf(CollectiveTimeoutException.class, s.getThrowable());
            }
            c.group(0).flightRecorder().awaitDumps().block(T);
            c.group(1).flightRecorder().awaitDumps().block(T);
            during = err.text();
            Thread.sleep(2_500);   // the collectives ended: no more reports
            afterwards = err.text().substring(during.length());
        } finally {
            c.close();
            t0.release();
            t1.release();
        }
        String rank0 = "group 'stuck' rank 0: allReduce seq 0 (4 MiB): waiting for rank 2 for ";
        assertTrue(count(during, rank0) >= 2, "rank 0 named rank 2 every second:\n" + during);
        assertTrue(during.lines().filter(l -> l.contains(rank0)).allMatch(l -> l.contains(" (timeout in ")
                && l.contains("; last data from ") && l.contains("rank 2: none")), during);
        assertTrue(count(during, "group 'stuck' rank 1: allReduce seq 0 (4 MiB): waiting for rank ") >= 2, during);
        assertTrue(during.contains("group 'stuck' rank 0: flight recorder dump written to "
                + c.group(0).flightRecorder().dumpFile()), during);
        assertEquals(0, count(afterwards, "group 'stuck'"), "no report once the collective ended:\n" + afterwards);
    }

    @Test
    void pointToPointReceivesNameTheRankTheyWaitForUntilTheyEnd() throws Exception {
        LocalCluster c = LocalCluster.start(3, GroupOptions.defaults().withGroupId("p2p").withWaitReportInterval(EVERY))
                .block(T);
        Tensor from2 = Tensor.zeros(DType.FLOAT32, 16);   // 64 B
        Tensor fromAny = Tensor.zeros(DType.FLOAT32, 16);
        Tensor sent = Tensor.zeros(DType.FLOAT32, 16);
        String during;
        String afterwards;
        try (StandardErrorCapture err = new StandardErrorCapture()) {
            CompletableFuture<Tensor> recv = c.group(0).recv(from2, 2, 7, CollectiveOptions.timeout(T)).toFuture();
            CompletableFuture<Signal<Integer>> any = c.group(0)
                    .recvAnySource(fromAny, 9, CollectiveOptions.timeout(Duration.ofMillis(3_500))).materialize().toFuture();
            Thread.sleep(2_500);   // rank 2 sends 2.5 s late; nobody sends with tag 9
            c.group(2).send(sent, 0, 7).block(T);
            recv.get(60, TimeUnit.SECONDS);
            assertInstanceOf(CollectiveTimeoutException.class, any.get(60, TimeUnit.SECONDS).getThrowable());
            during = err.text();
            Thread.sleep(2_500);   // the receives ended: no more reports
            afterwards = err.text().substring(during.length());
        } finally {
            c.close();
            from2.release();
            fromAny.release();
            sent.release();
        }
        String recv = "group 'p2p' rank 0: recv from rank 2 tag 7 (64 B): waiting for rank 2 for ";
        String any = "group 'p2p' rank 0: recvAnySource tag 9 (64 B): waiting for any rank for ";
        assertTrue(count(during, recv) >= 1, "rank 0 named rank 2 while it waited:\n" + during);
        assertTrue(count(during, any) >= 2, "rank 0 said it waits for any rank every second:\n" + during);
        assertTrue(during.lines().filter(l -> l.contains(recv) || l.contains(any)).allMatch(l -> l.contains(" (timeout in ")),
                during);
        assertEquals(0, count(afterwards, "group 'p2p'"), "no report once the receives ended:\n" + afterwards);
    }

    @Test
    void aJoinerThatNoMemberAdmitsSaysSoUntilItGivesUp() throws Exception {
        HashStore store = new HashStore(T);
        GroupOptions o = GroupOptions.defaults().withGroupId("nobody-left").withWaitReportInterval(EVERY)
                .withConnectTimeout(Duration.ofSeconds(4));
        String text;
        Throwable failure;
        ElasticGroupTest.State state = new ElasticGroupTest.State(0f, 0, "m");
        try (StandardErrorCapture err = new StandardErrorCapture()) {
            List<Signal<ElasticGroup>> end = ElasticGroup.join(store, 1, state, o)
                    .materialize().flux().collectList().block(T);
            failure = end.get(0).getThrowable();
            text = err.text();
        } finally {
            state.weights.release();
            store.close();
        }
        assertInstanceOf(CollectiveTimeoutException.class, failure, String.valueOf(failure));
        String line = "join of group 'nobody-left' as identity 1 (ticket 1): waiting for a member to admit it at a step boundary (";
        assertTrue(count(text, line) >= 2, "the joiner said every second that it waits:\n" + text);
        assertTrue(text.contains(" of 4 s); only members that still run admit joiners"), text);
    }
}
