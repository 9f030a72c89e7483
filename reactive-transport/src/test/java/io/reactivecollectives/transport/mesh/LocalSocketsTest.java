package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ranks on one host meet through Unix domain sockets; a peer from another node, or whose file is gone, through TCP. */
class LocalSocketsTest {

    @Test
    void ranksOfOneHostUseUnixSocketsAndRemoveTheirFilesOnClose() throws Exception {
        LocalCluster cluster = LocalCluster.start(3).block(Duration.ofSeconds(60));
        long before;
        try {
            for (MeshProcessGroup g : cluster.groups()) {
                for (int p = 0; p < 3; p++) {
                    // frames go through shared memory where the native futex waits are in use (see MeshSharedMemory)
                    String local = io.reactivecollectives.transport.shm.ShmSettings.fromSystemProperties().unavailableReason(3) == null
                            ? "shm" : "unix";
                    assertEquals(p == g.rank() ? "none" : local, g.transportTo(p), "rank " + g.rank() + " to " + p);
                }
            }
            before = countSockets();
            assertTrue(before >= 3, "each rank's socket file exists while the group is open");
        } finally {
            cluster.close();
        }
        assertTrue(countSockets() <= before - 3, "closing the group removes its socket files");
    }

    @Test
    void aPeerOnAnotherNodeOrWithoutItsFileIsReachedOverTcp() throws Exception {
        Path file = Files.createTempFile("rc-test", ".sock");
        try {
            String[] same = {"127.0.0.1:1", "uds=" + file, "node=" + LocalSockets.NODE_ID};
            assertEquals(file, LocalSockets.sameNodePath(same));
            assertNull(LocalSockets.sameNodePath(new String[] {"127.0.0.1:1", "uds=" + file, "node=elsewhere/1"}));
            assertNull(LocalSockets.sameNodePath(new String[] {"127.0.0.1:1"}), "no socket published: TCP");
            Files.delete(file);
            assertNull(LocalSockets.sameNodePath(same), "the file is not visible here: TCP");
            assertFalse(LocalSockets.NODE_ID.contains(";"), "the node id cannot break the address format");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static long countSockets() throws Exception {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            String pid = "rc-" + ProcessHandle.current().pid() + "-";
            return files.filter(f -> f.getFileName().toString().startsWith(pid)).count();
        }
    }
}
