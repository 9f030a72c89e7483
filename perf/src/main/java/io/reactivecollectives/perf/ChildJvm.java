package io.reactivecollectives.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The command line of a benchmark's child JVM: this JVM's java and class path, the given options, a main class and its arguments. */
final class ChildJvm {

    private ChildJvm() {
    }

    /**
     * {@code java <jvmArgs> [-Drc.store.unixSockets=false] -cp <this class path> <main> <args>}; {@code tcpOnly}
     * keeps the child's store clients off the server's local socket.
     */
    static List<String> command(String jvmArgs, boolean tcpOnly, Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (!jvmArgs.isBlank()) {
            cmd.addAll(Arrays.asList(jvmArgs.trim().split("\\s+")));
        }
        if (tcpOnly) {
            cmd.add("-Drc.store.unixSockets=false");
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(Arrays.asList(args));
        return cmd;
    }
}
