package io.reactivecollectives.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A JVM started without directives gets the data path's from its first group (HotSpot's answer
 * says how many, nothing reaches standard output, the file is gone); {@code rc.jit.directives=false}
 * and a JVM started with a directives file of its own (as {@code collectives-run} starts its ranks)
 * keep the JIT as they were.
 */
class DataPathDirectivesProcessesTest {

    @TempDir
    Path dir;

    private List<String> run(List<String> options) throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        List<String> all = new ArrayList<>(options);
        all.add("-Djava.io.tmpdir=" + tmp);
        ChildJvm.Output o = ChildJvm.run(dir, all, System.getProperty("java.class.path"),
                DataPathDirectivesMain.class.getName());
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(), left.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("rc-data-path-directives")).toList(), "the directives' file outlives the call");
        }
        return o.stdout().lines().toList();
    }

    @Test
    void aJvmWithoutDirectivesGetsTheDataPathsFromItsFirstGroup() throws Exception {
        assertEquals(List.of("before false", "outcome 1 compiler directives added", "drain-not-inlined true",
                "epoll-loop-not-inlined true", "own false"), run(List.of()));
    }

    @Test
    void theSettingOffLeavesTheJitAlone() throws Exception {
        assertEquals(List.of("before false", "outcome not added: rc.jit.directives is false", "drain-not-inlined false",
                "epoll-loop-not-inlined false", "own false"), run(List.of("-Drc.jit.directives=false")));
    }

    @Test
    void aJvmStartedWithADirectivesFileKeepsItsOwn() throws Exception {
        Path mine = dir.resolve("my-directives.json");
        Files.writeString(mine, "[ { match: [\"my/Own.*\"], c2: { Exclude: true } } ]");
        assertEquals(List.of("1 compiler directives added", "before false",
                        "outcome not added: the JVM was started with a directives file", "drain-not-inlined false",
                        "epoll-loop-not-inlined false", "own true"),
                run(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:CompilerDirectivesFile=" + mine)));
    }
}
