package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Subgroups and splits travel over their parent's connections (issue 44): a DeviceMesh-style grid
 * of row and column groups opens no socket, their collectives and point-to-point messages run at
 * the same time as the parent's and each other's with the right results, a subgroup of a subgroup
 * works, a member that closes its subgroup fails the others' subgroup work and leaves the parent
 * alone, and with {@code rc.subgroups.shareConnections=false} each subgroup connects its own mesh.
 */
class CarriedSubgroupTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static int openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }

    private static List<ProcessGroup> split(LocalCluster cluster, List<List<Integer>> partition) {
        List<Optional<ProcessGroup>> subs = cluster.run(g -> g.split(partition).map(Optional::of)
                .defaultIfEmpty(Optional.empty())).block(WAIT);
        assertNotNull(subs);
        List<ProcessGroup> mine = new ArrayList<>();
        subs.forEach(s -> mine.add(s.orElseThrow()));
        return mine;
    }

    @Test
    void aGridOfRowAndColumnGroupsOpensNoConnectionAndComputesRight() {
        LocalCluster cluster = LocalCluster.start(8, GroupOptions.defaults().withGroupId("grid")).block(WAIT);
        assertNotNull(cluster);
        List<Tensor> held = new ArrayList<>();
        try {
            int before = openFds();
            List<ProcessGroup> rows = split(cluster, List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7)));
            List<ProcessGroup> cols = split(cluster, List.of(List.of(0, 4), List.of(1, 5), List.of(2, 6), List.of(3, 7)));
            int after = openFds();
            assertTrue(before > 0 && after - before <= 4, "two splits of 8 ranks opened " + (after - before)
                    + " descriptors (" + before + " -> " + after + "); a mesh of their own needs dozens");
            for (int r = 0; r < 8; r++) {
                ProcessGroup row = rows.get(r);
                assertEquals(r % 4, row.rank());
                assertEquals(4, row.size());
                assertEquals(r / 4, cols.get(r).rank());
                MeshProcessGroup parent = cluster.group(r);
                assertEquals(parent.port(), ((MeshProcessGroup) row).port(), "the parent's server");
                int rowPeer = (r / 4) * 4 + (row.rank() + 1) % 4;
                assertEquals(parent.transportTo(rowPeer), ((MeshProcessGroup) row).transportTo((row.rank() + 1) % 4));
            }

            // the parent's all-reduce, the rows' all-reduce, the columns' point-to-point exchange, all at once
            List<Tensor> whole = new ArrayList<>();
            List<Tensor> inRow = new ArrayList<>();
            List<Tensor> toSend = new ArrayList<>();
            List<Tensor> received = new ArrayList<>();
            for (int r = 0; r < 8; r++) {
                whole.add(Tensor.fromLongs(new long[] {r, 1}, 2));
                inRow.add(Tensor.fromLongs(new long[] {1L << r}, 1));
                toSend.add(Tensor.fromLongs(new long[] {1000 + r, 2000 + r, 3000 + r}, 3));
                received.add(Tensor.fromLongs(new long[3], 3));
            }
            held.addAll(whole);
            held.addAll(inRow);
            held.addAll(toSend);
            held.addAll(received);
            cluster.run(g -> {
                int r = g.rank();
                ProcessGroup col = cols.get(r);
                int other = 1 - col.rank();
                Mono<Void> p2p = Mono.when(col.send(toSend.get(r), other, 7), col.recv(received.get(r), other, 7));
                return Mono.when(g.allReduce(whole.get(r), ReduceOp.SUM), rows.get(r).allReduce(inRow.get(r), ReduceOp.SUM), p2p)
                        .thenReturn(r);
            }).block(WAIT);
            for (int r = 0; r < 8; r++) {
                assertEquals(28, whole.get(r).getLong(0));
                assertEquals(8, whole.get(r).getLong(1));
                assertEquals(r < 4 ? 0x0FL : 0xF0L, inRow.get(r).getLong(0), "row sum on rank " + r);
                int partner = r < 4 ? r + 4 : r - 4;
                assertEquals(1000 + partner, received.get(r).getLong(0), "column message on rank " + r);
                assertEquals(3000 + partner, received.get(r).getLong(2));
            }

            // a subgroup of a row: ranks 1 and 2 of each row
            List<Optional<ProcessGroup>> pairs = cluster.run(g -> rows.get(g.rank()).newGroup(List.of(1, 2))
                    .map(Optional::of).defaultIfEmpty(Optional.empty())).block(WAIT);
            assertNotNull(pairs);
            List<Tensor> inPair = new ArrayList<>();
            for (int r = 0; r < 8; r++) {
                inPair.add(Tensor.fromLongs(new long[] {r}, 1));
            }
            held.addAll(inPair);
            cluster.run(g -> pairs.get(g.rank()).map(p -> p.allReduce(inPair.get(g.rank()), ReduceOp.SUM).thenReturn(1))
                    .orElse(Mono.just(0))).block(WAIT);
            for (int r = 0; r < 8; r++) {
                boolean member = r % 4 == 1 || r % 4 == 2;
                assertEquals(member, pairs.get(r).isPresent());
                long want = !member ? r : r < 4 ? 1 + 2 : 5 + 6;
                assertEquals(want, inPair.get(r).getLong(0), "pair sum on rank " + r);
            }

            // the rows close; the columns and the parent go on
            rows.forEach(ProcessGroup::close);
            cluster.run(g -> cols.get(g.rank()).allReduce(inRow.get(g.rank()), ReduceOp.SUM)
                    .then(g.barrier()).thenReturn(1)).block(WAIT);
            assertEquals(0x0FL + 0xF0L, inRow.get(0).getLong(0));
            assertEquals(0x0FL + 0xF0L, inRow.get(7).getLong(0));
        } finally {
            held.forEach(Tensor::release);
            cluster.close();
        }
    }

    @Test
    void membersCalledWithDifferentListsFailPromptlyNamingBoth() {
        LocalCluster cluster = LocalCluster.start(3, GroupOptions.defaults().withGroupId("lists")).block(WAIT);
        assertNotNull(cluster);
        List<Tensor> held = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            // ranks 0 and 1 ask for [0, 1], rank 2 for [1, 2]: the same (first) subgroup, two views of it
            List<Object> outcomes = cluster.run(g -> g.newGroup(g.rank() == 2 ? List.of(1, 2) : List.of(0, 1))
                    .map(sub -> (Object) sub).defaultIfEmpty("none").onErrorResume(e -> Mono.just(e))).block(WAIT);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertNotNull(outcomes);
            long refused = outcomes.stream().filter(o -> o instanceof IllegalArgumentException).count();
            assertTrue(refused >= 1, "a member whose list differs is refused: " + outcomes);
            for (Object o : outcomes) {
                if (o instanceof IllegalArgumentException e) {
                    assertTrue(e.getMessage().contains("newGroup: group 'lists/0'") && e.getMessage().contains("[0, 1]")
                            && e.getMessage().contains("[1, 2]"), e.getMessage());
                } else if (o instanceof ProcessGroup sub) {
                    sub.close();
                }
            }
            // whichever list came first, nobody waited out the 60 s connect timeout
            assertTrue(ms < 20_000, "took " + ms + " ms: " + outcomes);
            parentAllReducesRight(cluster, "the parent is untouched");
        } finally {
            held.forEach(Tensor::release);
            cluster.close();
        }
    }

    /**
     * Lists that differ in who is a member: the members refused or failing on the disagreement close
     * their subgroup without last words to a member that never routed it (before, those frames were a
     * protocol error there that closed the parent's connections), so the parent goes on.
     */
    @Test
    void membersThatDisagreeOnWhoIsInLeaveTheParentsConnectionsAlone() {
        LocalCluster cluster = LocalCluster.start(3, GroupOptions.defaults().withGroupId("who")).block(WAIT);
        assertNotNull(cluster);
        try {
            List<Object> outcomes = cluster.run(g -> g.newGroup(g.rank() == 2 ? List.of(1, 2) : List.of(0, 1, 2))
                    .map(sub -> (Object) sub).defaultIfEmpty("none").onErrorResume(e -> Mono.just(e))).block(WAIT);
            assertNotNull(outcomes);
            for (Object o : outcomes) {
                assertInstanceOf(IllegalArgumentException.class, o, "every member fails on the disagreement: " + outcomes);
            }
            parentAllReducesRight(cluster, "the parent's connections are intact");
        } finally {
            cluster.close();
        }
    }

    @Test
    void aMemberThatClosesItsSubgroupFailsTheOthersThereNotInTheParent() {
        LocalCluster cluster = LocalCluster.start(4, GroupOptions.defaults().withGroupId("leaving")).block(WAIT);
        assertNotNull(cluster);
        List<Tensor> held = new ArrayList<>();
        try {
            List<Optional<ProcessGroup>> subs = cluster.run(g -> g.newGroup(List.of(0, 1, 2)).map(Optional::of)
                    .defaultIfEmpty(Optional.empty())).block(WAIT);
            assertNotNull(subs);
            subs.get(2).orElseThrow().close();
            for (int r = 0; r < 2; r++) {
                Tensor t = Tensor.fromLongs(new long[] {1}, 1);
                held.add(t);
                Throwable e = subs.get(r).orElseThrow().allReduce(t, ReduceOp.SUM).then(Mono.<Throwable>empty())
                        .onErrorResume(Mono::just).block(Duration.ofSeconds(20));
                assertInstanceOf(CollectiveException.class, e, "rank " + r + " got " + e);
                assertTrue(e.getMessage().contains("peer 2"), e.getMessage());
            }
            parentAllReducesRight(cluster, "the parent is untouched");
        } finally {
            held.forEach(Tensor::release);
            cluster.close();
        }
    }

    @Test
    void withoutSharingEachSubgroupConnectsAMeshOfItsOwn() {
        String key = "rc.subgroups.shareConnections";
        String was = System.getProperty(key);
        LocalCluster cluster = LocalCluster.start(4, GroupOptions.defaults().withGroupId("own-mesh")).block(WAIT);
        assertNotNull(cluster);
        System.setProperty(key, "false");
        Tensor[] ts = new Tensor[4];
        try {
            int before = openFds();
            List<ProcessGroup> halves = split(cluster, List.of(List.of(0, 1), List.of(2, 3)));
            assertTrue(openFds() - before >= 8, "own meshes open sockets: " + before + " -> " + openFds());
            assertFalse(((MeshProcessGroup) halves.get(0)).port() == cluster.group(0).port(), "a server of its own");
            for (int r = 0; r < 4; r++) {
                ts[r] = Tensor.fromLongs(new long[] {r}, 1);
            }
            cluster.run(g -> halves.get(g.rank()).allReduce(ts[g.rank()], ReduceOp.SUM).thenReturn(1)).block(WAIT);
            assertEquals(1, ts[0].getLong(0));
            assertEquals(5, ts[3].getLong(0));
        } finally {
            if (was == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, was);
            }
            for (Tensor t : ts) {
                if (t != null) {
                    t.release();
                }
            }
            cluster.close();
        }
    }

    /**
     * A member that calls newGroup after the others gave up waiting for it: the others' error names
     * it by both numberings, their closing sends it no frame of a subgroup it does not route yet
     * (before, that frame was a protocol error that closed the parent's connection to it), and the
     * late member fails at once naming why instead of getting a subgroup its peers closed.
     */
    @Test
    void aMemberLateToNewGroupFailsCleanlyAndTheParentKeepsItsConnections() {
        LocalCluster cluster = LocalCluster.start(4, GroupOptions.defaults().withGroupId("late")
                .withConnectTimeout(Duration.ofSeconds(3))).block(WAIT);
        assertNotNull(cluster);
        List<Tensor> held = new ArrayList<>();
        try {
            List<Object> outcomes = cluster.run(g -> Mono.delay(Duration.ofMillis(g.rank() == 3 ? 7000 : 0))
                    .then(g.newGroup(List.of(1, 2, 3)).map(sub -> (Object) sub).defaultIfEmpty("none")
                            .onErrorResume(e -> Mono.just(e)).elapsed()
                            .map(t -> g.rank() == 3 ? List.of(t.getT2(), t.getT1()) : t.getT2()))).block(WAIT);
            assertNotNull(outcomes);
            assertEquals("none", outcomes.get(0));
            for (int r = 1; r <= 2; r++) {
                Throwable e = assertInstanceOf(Throwable.class, outcomes.get(r), "rank " + r);
                assertTrue(e.getMessage().contains("ranks [2] of the subgroup (ranks [3] of the parent) never started it"),
                        e.getMessage());
            }
            List<?> late = (List<?>) outcomes.get(3);
            Throwable e = assertInstanceOf(Throwable.class, late.get(0), "the late rank: " + late);
            assertTrue(e.getMessage().contains("group 'late/0'") && e.getMessage().contains("never started it"), e.getMessage());
            assertTrue((Long) late.get(1) < 1500, "the late rank failed after " + late.get(1) + " ms");
            parentAllReducesRight(cluster, "the parent's connections are intact");
        } finally {
            held.forEach(Tensor::release);
            cluster.close();
        }
    }

    /**
     * A subgroup whose unclaimed frames filled its budget pauses the parent's reading (the connections
     * are shared); closing it gives the connections back: the parent's all-reduce completes.
     */
    @Test
    void aSubgroupThatPausedTheSharedConnectionsResumesThemWhenItCloses() {
        GroupOptions small = GroupOptions.defaults().withGroupId("paused").withSegmentBytes(4096)
                .withMaxFramePayload(4096).withMaxUnclaimedBytes(16384);
        LocalCluster cluster = LocalCluster.start(2, small).block(WAIT);
        assertNotNull(cluster);
        Tensor big = Tensor.fromFloats(new float[1 << 18], 1 << 18);
        Tensor[] whole = {Tensor.fromLongs(new long[] {1}, 1), Tensor.fromLongs(new long[] {2}, 1)};
        try {
            List<Optional<ProcessGroup>> subs = cluster.run(g -> g.newGroup(List.of(0, 1)).map(Optional::of)
                    .defaultIfEmpty(Optional.empty())).block(WAIT);
            assertNotNull(subs);
            // rank 0 broadcasts 1 MiB that rank 1 never asks for: its frames wait unclaimed there, past the budget
            reactor.core.Disposable sending = subs.get(0).orElseThrow().broadcast(big, 0).subscribe(x -> { }, e -> { });
            Mono.delay(Duration.ofMillis(500)).block();
            subs.get(1).orElseThrow().close();
            cluster.run(g -> g.allReduce(whole[g.rank()], ReduceOp.SUM).thenReturn(1)).block(Duration.ofSeconds(20));
            assertEquals(3, whole[0].getLong(0));
            assertEquals(3, whole[1].getLong(0));
            sending.dispose();
        } finally {
            big.release();
            whole[0].release();
            whole[1].release();
            cluster.close();
        }
    }

    /** The parent's all-reduce on every rank is right (each rank gives rank + 1; all get the sum). */
    private static void parentAllReducesRight(LocalCluster cluster, String what) {
        List<Tensor> whole = new ArrayList<>();
        try {
            for (int r = 0; r < cluster.size(); r++) {
                whole.add(Tensor.fromLongs(new long[] {r + 1}, 1));
            }
            cluster.run(g -> g.allReduce(whole.get(g.rank()), ReduceOp.SUM).thenReturn(1)).block(WAIT);
            long n = cluster.size();
            for (Tensor t : whole) {
                assertEquals(n * (n + 1) / 2, t.getLong(0), what);
            }
        } finally {
            whole.forEach(Tensor::release);
        }
    }
}
