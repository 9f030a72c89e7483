package io.reactivecollectives.transport;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.mesh.MeshPeers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections made on demand are closed when idle over {@code rc.mesh.onDemandLimit} (issue 44):
 * 12 ranks above {@code rc.mesh.fullUpTo} (lowered to 4) each connect to every other rank through
 * point-to-point messages, then settle at the limit; rounds of messages between every pair, each
 * started while the last round's connections are being closed, all arrive right and nothing is
 * taken for a failure; the connections made at start stay.
 */
class IdleConnectionsTest {

    private static final int N = 12;
    private static final int LIMIT = 1;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Map<String, String> SETTINGS = Map.of("rc.mesh.fullUpTo", "4",
            "rc.mesh.onDemandLimit", String.valueOf(LIMIT), "rc.mesh.idleAfter", "100ms");
    private static final Map<String, String> before = new java.util.HashMap<>();

    @BeforeAll
    static void set() {
        SETTINGS.forEach((k, v) -> {
            before.put(k, System.getProperty(k));
            System.setProperty(k, v);
        });
    }

    @AfterAll
    static void restore() {
        before.forEach((k, v) -> {
            if (v == null) {
                System.clearProperty(k);
            } else {
                System.setProperty(k, v);
            }
        });
    }

    /** Every rank of the cluster sends every other a message naming both and the round; all must arrive right. */
    private static void everyPair(LocalCluster c, int round) {
        everyPair(new ArrayList<io.reactivecollectives.core.ProcessGroup>(c.groups()), round);
    }

    /** {@link #everyPair(LocalCluster, int)} among {@code groups}, one group per rank of them, in rank order. */
    private static void everyPair(List<io.reactivecollectives.core.ProcessGroup> groups, int round) {
        int n = groups.size();
        List<Tensor> held = new ArrayList<>();
        try {
            List<Mono<?>> all = new ArrayList<>();
            Tensor[][] got = new Tensor[n][n];
            for (int r = 0; r < n; r++) {
                for (int p = 0; p < n; p++) {
                    if (p == r) {
                        continue;
                    }
                    Tensor out = Tensor.fromLongs(new long[] {round, r, p}, 3);
                    Tensor in = Tensor.fromLongs(new long[3], 3);
                    held.add(out);
                    held.add(in);
                    got[p][r] = in;   // what p receives from r
                    all.add(groups.get(r).send(out, p, round));
                    all.add(groups.get(p).recv(in, r, round));
                }
            }
            Mono.when(all).block(TIMEOUT);
            for (int p = 0; p < n; p++) {
                for (int r = 0; r < n; r++) {
                    if (p != r) {
                        assertEquals(round, got[p][r].getLong(0), "round " + round + " " + r + " -> " + p);
                        assertEquals(r, got[p][r].getLong(1));
                        assertEquals(p, got[p][r].getLong(2));
                    }
                }
            }
        } finally {
            held.forEach(Tensor::release);
        }
    }

    /** The peers rank {@code r} has a connection to that it made (or took) on demand. */
    private static int onDemandOpen(LocalCluster c, int r) {
        int open = 0;
        for (int p = 0; p < N; p++) {
            if (p != r && !MeshPeers.POWERS_OF_TWO.includes(r, p, N) && !"none".equals(c.group(r).transportTo(p))) {
                open++;
            }
        }
        return open;
    }

    @Test
    void idleConnectionsCloseOverTheLimitAndComeBackWhenUsed() throws InterruptedException {
        try (LocalCluster c = LocalCluster.start(N, GroupOptions.defaults().withGroupId("idle")).block(TIMEOUT)) {
            everyPair(c, 1);
            // the connections made on demand sit idle: each rank closes all but LIMIT of them
            long deadline = System.nanoTime() + 10_000_000_000L;
            int most;
            do {
                Thread.sleep(100);
                most = 0;
                for (int r = 0; r < N; r++) {
                    most = Math.max(most, onDemandOpen(c, r));
                }
            } while (most > LIMIT && System.nanoTime() < deadline);
            assertTrue(most <= LIMIT, "a rank still holds " + most + " connections made on demand");
            for (int r = 0; r < N; r++) {
                for (int p = 0; p < N; p++) {
                    if (p != r && MeshPeers.POWERS_OF_TWO.includes(r, p, N)) {
                        assertTrue(!"none".equals(c.group(r).transportTo(p)), "the start's link " + r + " -> " + p + " stays");
                    }
                }
            }
            // rounds that start while the last round's connections are being closed
            for (int round = 2; round <= 6; round++) {
                everyPair(c, round);
                Thread.sleep(80 + 40 * (round % 3));
            }
            // nothing was taken for a failure: a collective of every rank still runs
            List<Tensor> ts = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                ts.add(Tensor.fromLongs(new long[] {r}, 1));
            }
            try {
                c.run(g -> g.allReduce(ts.get(g.rank()), ReduceOp.SUM).thenReturn(1)).block(TIMEOUT);
                for (Tensor t : ts) {
                    assertEquals(N * (N - 1) / 2, t.getLong(0));
                }
            } finally {
                ts.forEach(Tensor::release);
            }
        }
    }

    /** A subgroup carried over the mesh connects anew where the parent's idle link to a member was closed. */
    @Test
    void aSubgroupSendsAgainOverAConnectionClosedAsIdle() throws InterruptedException {
        try (LocalCluster c = LocalCluster.start(N, GroupOptions.defaults().withGroupId("idle-sub")).block(TIMEOUT)) {
            List<Integer> evens = new ArrayList<>();
            for (int r = 0; r < N; r += 2) {
                evens.add(r);
            }
            List<java.util.Optional<io.reactivecollectives.core.ProcessGroup>> subs = c.run(g -> g.newGroup(evens)
                    .map(java.util.Optional::of).defaultIfEmpty(java.util.Optional.empty())).block(TIMEOUT);
            List<io.reactivecollectives.core.ProcessGroup> members = new ArrayList<>();
            for (int r : evens) {
                members.add(subs.get(r).orElseThrow());
            }
            for (int round = 1; round <= 4; round++) {
                everyPair(members, round);
                Thread.sleep(400);   // idle past rc.mesh.idleAfter: the parent closes links over the limit
            }
            int most = 0;
            for (int r = 0; r < N; r++) {
                most = Math.max(most, onDemandOpen(c, r));
            }
            assertTrue(most <= LIMIT + 1, "connections made on demand per rank: " + most);
        }
    }
}
