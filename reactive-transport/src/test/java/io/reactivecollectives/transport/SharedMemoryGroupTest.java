package io.reactivecollectives.transport;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.shm.ShmSettings;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ranks of one host exchange frames through shared memory: all of them, leaving no file in
 * /dev/shm once the group has started; messages many times the ring's size arrive whole; and where
 * the directory has too little room the ranks keep their Unix sockets, each saying why in one line.
 */
class SharedMemoryGroupTest {

    @Test
    void fourLocalRanksUseSharedMemoryLeaveNoFileAndMoveLargeMessages() {
        int world = 4;
        String why = ShmSettings.fromSystemProperties().unavailableReason(world);
        assumeTrue(why == null, "shared memory cannot be used here: " + why);
        ClusterTesting.withCluster(world, GroupOptions.defaults().withGroupId("shm-group"), cluster -> {
            for (MeshProcessGroup g : cluster.groups()) {
                for (int p = 0; p < world; p++) {
                    assertEquals(p == g.rank() ? "none" : "shm", g.transportTo(p), "rank " + g.rank() + " to " + p);
                }
            }
            try {
                assertEquals(List.of(), ReliabilityProcessesTest.leftovers(ProcessHandle.current().pid()),
                        "the segment is unlinked once every local rank mapped it");
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
            int n = 5 << 20;  // 20 MiB of float32: ten rings, more than one frame (16 MiB) for send/recv
            List<Tensor> sums = new ArrayList<>();
            for (int r = 0; r < world; r++) {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (i % 251) + r;
                }
                sums.add(tensor(v));
            }
            cluster.run(g -> g.allReduce(sums.get(g.rank()), ReduceOp.SUM)).block(ClusterTesting.TIMEOUT);
            float[] want = new float[n];
            for (int i = 0; i < n; i++) {
                want[i] = 4 * (i % 251) + 6;
            }
            for (Tensor t : sums) {
                assertArrayEquals(want, floats(t));
                t.release();
            }
            float[] sent = new float[n];
            for (int i = 0; i < n; i++) {
                sent[i] = i * 0.5f;
            }
            Tensor out = tensor(sent);
            Tensor in = tensor(new float[n]);
            cluster.run(g -> g.rank() == 1 ? g.send(out, 3, 7).then(Mono.just(1))
                    : g.rank() == 3 ? g.recv(in, 1, 7).thenReturn(3) : Mono.just(0)).block(ClusterTesting.TIMEOUT);
            assertArrayEquals(sent, floats(in), "a 20 MiB message through 2 MiB rings, in 16 MiB frames");
            out.release();
            in.release();
            return null;
        });
    }

    /** A float32 tensor of {@code v}, copied in bulk (element by element is slow under PARANOID leak detection). */
    private static Tensor tensor(float[] v) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(v.length * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(v);
        Tensor t = Tensor.empty(io.reactivecollectives.core.DType.FLOAT32, v.length);
        t.buffer().setBytes(0, b);
        return t;
    }

    private static float[] floats(Tensor t) {
        float[] out = new float[(int) t.numel()];
        java.nio.ByteBuffer.wrap(t.toByteArray()).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }

    @Test
    void tooLittleRoomInDevShmKeepsUnixSocketsWithOneLinePerRank() throws Exception {
        // the free-space check a small /dev/shm fails, made to fail here by asking to leave 1 EB free
        fallsBackToUnixSockets(List.of(), "-Drc.transport.shmReserveBytes=" + (1L << 60));
    }

    /** A real 4 MiB /dev/shm (a mount namespace of its own, as a container's), where a test may make one. */
    @Test
    void aFourMiBDevShmKeepsUnixSocketsWithOneLinePerRank() throws Exception {
        fallsBackToUnixSockets(devShmOf("4m"));
    }

    /** A 12 MiB /dev/shm: 2 MiB rings would not leave the reserve, 1 MiB rings do; shared memory stays. */
    @Test
    void aTwelveMiBDevShmShrinksTheRingsAndKeepsSharedMemory() throws Exception {
        String out = runMain(devShmOf("12m"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        assertTrue(out.contains("RESULT 3.0 via shm"), out);
        assertTrue(out.contains("rings of 1024 KiB instead of 2048 KiB"), out);
        assertTrue(!out.contains("LEAK:"), out);
    }

    /**
     * Eight local ranks with 64 KiB rings and a budget of 32 rings (the least the segment needs for
     * eight ranks): shared memory is used, each ring's memory is taken at its first write, and the
     * 24 pairs whose rings the budget cannot hold send through their Unix sockets; an all-to-all
     * (every pair) and a 1 MiB all-reduce are right element by element.
     */
    @Test
    void aBudgetForFewerRingsThanPairsSendsTheOthersThroughUnixSockets() throws Exception {
        assumeTrue(ShmSettings.fromSystemProperties().unavailableReason() == null, "no shared memory here at all");
        String out = runMain(List.of(), SharedMemoryBudgetMain.class, "-Drc.transport.shmRingBytes=65536",
                "-Drc.transport.shmBudgetBytes=" + 32 * 65536);
        assertTrue(out.contains("RESULT right true shm 32 unix 24"), out);
        assertTrue(!out.contains("shared memory not used"), out);
        assertTrue(!out.contains("LEAK:"), out);
    }

    /** The command prefix that runs a command with a /dev/shm of {@code size}, or skips the test. */
    private static List<String> devShmOf(String size) throws Exception {
        assumeTrue(ShmSettings.fromSystemProperties().unavailableReason() == null, "no shared memory here at all");
        boolean canMount;
        try {
            Process probe = new ProcessBuilder("unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=" + size + " tmpfs /dev/shm")
                    .redirectErrorStream(true).start();
            canMount = probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (java.io.IOException e) {
            canMount = false;
        }
        assumeTrue(canMount, "cannot make a mount namespace with its own /dev/shm here (needs root and unshare)");
        return List.of("unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=" + size + " tmpfs /dev/shm && exec \"$@\"", "sh");
    }

    private static void fallsBackToUnixSockets(List<String> prefix, String... options) throws Exception {
        String out = runMain(prefix, options);
        assertTrue(out.contains("RESULT 3.0 via unix"), out);
        long lines = out.lines().filter(l -> l.contains("shared memory not used")).count();
        assertEquals(2, lines, "one line for each of the 2 ranks:\n" + out);
        assertTrue(out.contains("MiB free, 2 local ranks need"), out);
        assertTrue(!out.contains("LEAK:"), out);
    }

    private static String runMain(List<String> prefix, String... options) throws Exception {
        return runMain(prefix, SharedMemoryFallbackMain.class, options);
    }

    private static String runMain(List<String> prefix, Class<?> main, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dio.netty.leakDetection.level=paranoid"));
        cmd.addAll(List.of(options));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
