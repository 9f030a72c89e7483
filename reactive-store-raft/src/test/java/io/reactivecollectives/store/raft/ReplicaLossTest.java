package io.reactivecollectives.store.raft;

import io.reactivecollectives.transport.rendezvous.TcpStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No replica is a single point of failure: three replicas, each lost in turn, and the two left keep
 * every acknowledged write, serve reads and writes through either of them, and wake a wait registered
 * on one by a write through the other. Two lost: the last one, a minority, neither writes nor answers
 * a read (its clients time out) instead of going on alone. A replica started
 * again with an empty log (a host that came back) is caught up and counts in the majority again.
 */
class ReplicaLossTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "replica {0} lost")
    @ValueSource(ints = {0, 1, 2})
    void losingAnyOneReplicaLosesNothing(int lost) {
        try (Replicas r = new Replicas(3)) {
            r.clients.get(0).set("before", b("kept")).block(Replicas.T);
            assertEquals(1L, r.clients.get(1).add("counter", 1).block(Replicas.T));
            r.lose(lost);
            List<TcpStore> left = lost == 0 ? List.of(r.clients.get(1), r.clients.get(2))
                    : lost == 1 ? List.of(r.clients.get(0), r.clients.get(2)) : List.of(r.clients.get(0), r.clients.get(1));
            for (TcpStore c : left) {
                assertArrayEquals(b("kept"), c.get("before", Duration.ofSeconds(20)).block(Replicas.T));
            }
            assertEquals(2L, left.get(0).add("counter", 1).block(Replicas.T));
            assertEquals(3L, left.get(1).add("counter", 1).block(Replicas.T));
            // a wait on one survivor, woken by a write through the other
            var waiting = left.get(0).get("after", Duration.ofSeconds(20)).toFuture();
            left.get(1).set("after", b("seen")).block(Replicas.T);
            assertArrayEquals(b("seen"), waiting.join());
        }
    }

    @Test
    void aReplicaStartedAgainEmptyIsCaughtUpAndKeepsTheStoreAlive() {
        try (Replicas r = new Replicas(3)) {
            r.clients.get(0).set("before", b("kept")).block(Replicas.T);
            assertEquals(5L, r.clients.get(1).add("counter", 5).block(Replicas.T));
            r.lose(0);
            assertEquals(6L, r.clients.get(2).add("counter", 1).block(Replicas.T));   // while it is away
            r.startAgain(0);
            // the newcomer answers from what the others hold, written before and while it was away
            assertArrayEquals(b("kept"), r.clients.get(0).get("before", Duration.ofSeconds(20)).block(Replicas.T));
            assertArrayEquals(b("6"), r.clients.get(0).get("counter", Duration.ofSeconds(20)).block(Replicas.T));
            // and it counts in the majority again: with another replica lost, the store still writes
            r.lose(1);
            assertEquals(7L, r.clients.get(0).add("counter", 1).block(Replicas.T));
            assertEquals(8L, r.clients.get(2).add("counter", 1).block(Replicas.T));
        }
    }

    /** The audit: the leaderless report stopped for good once a leader was known, so a later loss was silent. */
    @Test
    void aReplicaThatLosesItsLeaderSaysSoEveryInterval() throws Exception {
        String saved = System.getProperty("rc.wait-reports.interval");
        System.setProperty("rc.wait-reports.interval", "1s");
        String after = "";
        try (io.reactivecollectives.core.testing.StandardErrorCapture err =
                     new io.reactivecollectives.core.testing.StandardErrorCapture();
             Replicas r = new Replicas(3)) {
            Thread.sleep(1_500);   // a report interval with a leader
            int mark = err.text().length();
            r.lose(0);
            r.lose(1);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            String line = "store replica 2 of 3: no leader: the last one was lost: waiting for 2 of the store's replicas (";
            while (System.nanoTime() < deadline && after.lines().filter(l -> l.contains(line)).count() < 2) {
                Thread.sleep(200);
                after = err.text().substring(mark);
            }
            assertTrue(after.lines().filter(l -> l.contains(line)).count() >= 2, "said every second that it lost its "
                    + "leader:\n" + after);
        } finally {
            if (saved == null) {
                System.clearProperty("rc.wait-reports.interval");
            } else {
                System.setProperty("rc.wait-reports.interval", saved);
            }
        }
    }

    @Test
    void aMinorityLeftAloneNeitherWritesNorAnswersReads() {
        try (Replicas r = new Replicas(3)) {
            r.clients.get(2).set("before", b("kept")).block(Replicas.T);
            r.lose(0);
            r.lose(1);
            TcpStore alone = r.clients.get(2);
            // its clients time out (3 s here): nothing is written, and no read is served from a state
            // that a majority elsewhere may have moved past
            assertThrows(RuntimeException.class, () -> alone.set("alone", b("never")).timeout(Duration.ofSeconds(3))
                    .block(Duration.ofSeconds(10)));
            assertThrows(RuntimeException.class, () -> alone.get("before", Duration.ofSeconds(1))
                    .timeout(Duration.ofSeconds(3)).block(Duration.ofSeconds(10)));
        }
    }
}
