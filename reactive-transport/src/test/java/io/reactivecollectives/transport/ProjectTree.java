package io.reactivecollectives.transport;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The project's files for tests that read its sources: build folders ({@code target*}), hidden ones
 * and {@code node_modules} are not entered. Walking into them raced with the other test JVM of the
 * module writing its reports there (a file listed, then gone: {@code NoSuchFileException}).
 */
public final class ProjectTree {

    private ProjectTree() {
    }

    /**
     * The regular files under {@code root}, in the walk's order.
     *
     * @param root the project's root
     * @return the files
     * @throws IOException when {@code root} cannot be read
     */
    public static Stream<Path> files(Path root) throws IOException {
        List<Path> out = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                boolean build = name.startsWith("target") || name.startsWith(".") || name.equals("node_modules");
                return !dir.equals(root) && build ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes a) {
                if (a.isRegularFile()) {
                    out.add(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;   // gone while walking
            }
        });
        return out.stream();
    }
}
