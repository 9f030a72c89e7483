package io.reactivecollectives.store.wire;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which socket files a new server may clear ({@link UnixSocketFiles#clearStale}), and the registry of owned ones. */
class UnixSocketFilesTest {

    @TempDir
    Path dir;

    @Test
    void anAbsentPathIsFree() {
        assertTrue(UnixSocketFiles.clearStale(dir.resolve("none.sock")));
    }

    @Test
    void aSocketNobodyListensOnIsRemoved() throws Exception {
        Path p = dir.resolve("stale.sock");
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(p));
        s.close();   // closing a channel leaves its file behind, as a killed process does
        assertTrue(Files.exists(p));
        assertTrue(UnixSocketFiles.clearStale(p));
        assertFalse(Files.exists(p));
    }

    @Test
    void aPlainFileInTheWayIsRemoved() throws Exception {
        Path p = Files.createFile(dir.resolve("plain.sock"));
        assertTrue(UnixSocketFiles.clearStale(p));
        assertFalse(Files.exists(p));
    }

    @Test
    void aLiveSocketIsLeftAlone() throws Exception {
        Path p = dir.resolve("live.sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(p));
            assertFalse(UnixSocketFiles.clearStale(p));
            assertTrue(Files.exists(p));
        }
    }

    @Test
    void aDirectoryIsLeftAlone() throws Exception {
        Path p = Files.createDirectory(dir.resolve("dir.sock"));
        assertFalse(UnixSocketFiles.clearStale(p));
        assertTrue(Files.isDirectory(p));
    }

    @Test
    void aReleasedFileIsDeletedAndForgotten() throws Exception {
        Path p = Files.createFile(dir.resolve("owned.sock"));
        OwnedSocketFile f = OwnedSocketFile.own(p);
        assertTrue(OwnedSocketFile.owned().contains(p));
        f.release();   // on a test thread: at once
        assertFalse(Files.exists(p));
        assertFalse(OwnedSocketFile.owned().contains(p));
    }
}
