package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.rendezvous.HashStore;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A heartbeat ring: the pairs are symmetric and each rank has two per side (every rank when the
 * group is small), and a mesh started with ring peers connects each rank to exactly those.
 */
class MeshPeersTest {

    /** Drops frames; the tests close the meshes, or their start fails. */
    private static final FrameListener QUIET = new FrameListener() {
        @Override
        public void onFrame(int peer, ByteBuf frame) {
            frame.release();
        }

        @Override
        public void onClosed(int peer, Throwable cause) {
            // nothing to do
        }
    };

    @Test
    void ringPeersAreSymmetricAndTheirCountIsRight() {
        for (int world = 2; world <= 12; world++) {
            for (int k = 0; k <= 3; k++) {
                MeshPeers peers = new MeshPeers(k);
                for (int r = 0; r < world; r++) {
                    int count = 0;
                    for (int p = 0; p < world; p++) {
                        assertEquals(peers.includes(r, p, world), peers.includes(p, r, world), world + " " + k + " " + r + " " + p);
                        count += peers.includes(r, p, world) ? 1 : 0;
                    }
                    assertEquals(count, peers.count(r, world), "world " + world + ", " + k + " per side, rank " + r);
                    assertTrue(count == world - 1 || count == 2 * k, "world " + world + ", " + k + " per side: " + count);
                }
            }
        }
        assertTrue(new MeshPeers(2).includes(0, 6, 8) && new MeshPeers(2).includes(0, 7, 8), "the ring wraps");
        assertTrue(!new MeshPeers(2).includes(0, 3, 8) && !new MeshPeers(2).includes(0, 5, 8));
    }

    @Test
    void powersOfTwoAreSymmetricAtMostTwoLogNAndHoldEveryPartnerOfTheStructuredAlgorithms() {
        MeshPeers peers = MeshPeers.POWERS_OF_TWO;
        for (int world = 2; world <= 300; world++) {
            int log = 32 - Integer.numberOfLeadingZeros(world - 1);
            for (int r = 0; r < world; r += Math.max(1, world / 17)) {
                int count = 0;
                for (int p = 0; p < world; p++) {
                    assertEquals(peers.includes(r, p, world), peers.includes(p, r, world), world + " " + r + " " + p);
                    count += peers.includes(r, p, world) ? 1 : 0;
                }
                assertEquals(count, peers.count(r, world), "world " + world + ", rank " + r);
                assertTrue(count <= 2 * log, "world " + world + ": " + count + " peers");
                // ring neighbours, hypercube partners (r xor 2^k), and a binomial tree's parent and
                // children around any root (r +- 2^k): every one of them a peer
                for (int k = 1; k < world; k <<= 1) {
                    assertTrue(peers.includes(r, (r + k) % world, world) && peers.includes(r, Math.floorMod(r - k, world), world));
                    if ((r ^ k) < world) {
                        assertTrue(peers.includes(r, r ^ k, world), world + ": " + r + " xor " + k);
                    }
                }
            }
            assertEquals(peers.count(0, world) == world - 1, peers.all(world), "world " + world);
            assertEquals(!peers.all(world), peers.onDemand(world), "world " + world);
        }
        assertTrue(!MeshPeers.ALL.onDemand(1000) && !new MeshPeers(2).onDemand(1000), "rings and full meshes never dial on demand");
        assertTrue(peers.all(5) && peers.all(7) && !peers.all(6) && !peers.all(9), "small rings are whole");
        assertEquals(15, peers.count(0, 256));
        assertTrue(!peers.includes(0, 3, 256) && !peers.includes(0, 100, 256) && peers.includes(0, 128, 256));
    }

    @Test
    void aRankWhoseSettingsGiveOtherPeersFailsTheStartNamingTheSetting() {
        int world = 8;
        HashStore store = new HashStore(Duration.ofSeconds(20));
        MeshOptions options = new MeshOptions("peers-mismatch", Duration.ofSeconds(3), "127.0.0.1",
                null, 0, 1, Duration.ofMillis(200), 5, MeshRole.DATA, null);
        // rank 5 was started with a lower rc.mesh.fullUpTo than the others
        List<Object> ends = Flux.range(0, world)
                .flatMap(r -> Mesh.start(store, r, world, options, r == 5 ? MeshPeers.POWERS_OF_TWO : MeshPeers.ALL, QUIET,
                        Duration.ZERO).<Object>map(m -> m).onErrorResume(e -> reactor.core.publisher.Mono.just(e)), world)
                .collectList().block(Duration.ofSeconds(60));
        int named = 0;
        for (Object end : ends) {
            if (end instanceof Mesh m) {
                m.close();
            } else {
                String msg = String.valueOf(((Throwable) end).getMessage());
                named += msg.contains("rc.mesh.fullUpTo") && msg.contains("rank 5") ? 1 : 0;
            }
        }
        // rank 0 reads every address for its book, rank 5 hears ranks 6 and 7: both name the setting
        // (the others end when rank 0 is gone, or at the connect timeout)
        assertTrue(named >= 2, "ranks naming the setting: " + named + " of " + ends);
    }

    @Test
    void aHeartbeatRingOfTenRanksConnectsEachToItsFourNeighboursOnly() {
        int world = 10;
        MeshPeers peers = new MeshPeers(2);
        HashStore store = new HashStore(Duration.ofSeconds(20));
        MeshOptions options = new MeshOptions("ring-test" + MeshOptions.LIVENESS_SUFFIX, Duration.ofSeconds(20), "127.0.0.1",
                null, 0, 1, Duration.ofMillis(200), 5, MeshRole.LIVENESS, null);
        List<Mesh> meshes = Flux.range(0, world)
                .flatMap(r -> Mesh.start(store, r, world, options, peers, QUIET, Duration.ZERO), world)
                .collectList().block(Duration.ofSeconds(60));
        try {
            assertEquals(world, meshes.size());
            for (Mesh m : meshes) {
                int links = 0;
                for (int p = 0; p < world; p++) {
                    assertEquals(peers.includes(m.rank(), p, world), m.link(p) != null, "rank " + m.rank() + " to " + p);
                    links += m.link(p) != null ? 1 : 0;
                }
                assertEquals(4, links, "rank " + m.rank());
            }
        } finally {
            meshes.forEach(Mesh::close);
        }
    }
}
