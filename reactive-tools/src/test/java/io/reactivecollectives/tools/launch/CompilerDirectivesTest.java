package io.reactivecollectives.tools.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

import static io.reactivecollectives.tools.launch.LaunchResult.launch;
import static io.reactivecollectives.tools.launch.LaunchResult.oneRank;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's compiler directives reach the ranks of a focused launch (and parse: a JVM given a
 * file it cannot parse does not start), HotSpot's notice of them stays off the ranks' output, the
 * user's own directives file wins, the file is gone after the launch (also after SIGTERM), and
 * every method the directives name still exists (a renamed method would leave a directive that
 * silently does nothing).
 */
class CompilerDirectivesTest {

    /** Prints the directives its JVM compiles with, and the directives file it was given. */
    public static final class DirectivesChild {
        public static void main(String[] args) throws Exception {
            Object printed = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            String file = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .filter(a -> a.startsWith("-XX:CompilerDirectivesFile=")).findFirst().orElse("none");
            System.out.println("file " + file);
            System.out.println("drain-not-inlined " + printed.toString().contains("-io/reactivecollectives/transport/algorithms/Lanes$PairedSteps$Run.drain"));
            System.out.println("asm-excluded " + printed.toString().contains("jdk/internal/org/objectweb/asm/*.*"));
            System.out.println("rc.jit.directives " + System.getProperty("rc.jit.directives"));
        }
    }

    /** Says it runs, then sleeps until it is stopped. */
    public static final class SleepingChild {
        public static void main(String[] args) throws Exception {
            System.out.println("running");
            System.out.flush();
            Thread.sleep(60_000);
        }
    }

    private static String fileOf(LaunchResult r) {
        Matcher m = Pattern.compile("file -XX:CompilerDirectivesFile=(\\S+)").matcher(r.out());
        assertTrue(m.find(), r.out());
        return m.group(1);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aFocusedLaunchGivesEveryRankTheDirectivesWithoutTheirNoticeAndRemovesTheFile() {
        LaunchResult r = launch("--nproc-per-node", "2", "--class-data", "off", "--jit", "focused", "--",
                DirectivesChild.class.getName());
        assertEquals(0, r.code(), r.err());
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(r.out().contains("[rank " + rank + "] drain-not-inlined true"), r.out());
            assertTrue(r.out().contains("[rank " + rank + "] asm-excluded true"), r.out());
        }
        assertFalse(r.out().contains("compiler directive"), r.out());
        assertEquals(8, r.out().lines().count(), r.out());
        assertFalse(Files.exists(Path.of(fileOf(r))), "the launch's directives file outlives it");
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void theUsersOwnDirectivesFileWinsTheLeanProfileHasThemAndTheDefaultProfileHasNone(@TempDir Path dir) throws Exception {
        Path mine = dir.resolve("my-directives.json");
        Files.writeString(mine, "[ { match: [\"my/Own.*\"], c2: { Exclude: true } } ]");
        LaunchResult r = oneRank(DirectivesChild.class, "--jit", "focused", "--jvm-arg=-XX:+UnlockDiagnosticVMOptions",
                "--jvm-arg=-XX:CompilerDirectivesFile=" + mine);
        assertEquals(0, r.code(), r.err());
        assertEquals(mine.toString(), fileOf(r));
        assertTrue(r.out().contains("drain-not-inlined false"), r.out());
        assertTrue(r.out().contains("[rank 0] 1 compiler directives added"), "the user's notice is theirs to keep: " + r.out());
        LaunchResult lean = oneRank(DirectivesChild.class, "--jit", "lean");
        assertEquals(0, lean.code(), lean.err());
        assertTrue(lean.out().contains("[rank 0] drain-not-inlined true"), lean.out());
        LaunchResult plain = oneRank(DirectivesChild.class, "--jit", "default");
        assertEquals(0, plain.code(), plain.err());
        assertTrue(plain.out().contains("[rank 0] file none"), plain.out());
        assertTrue(plain.out().contains("drain-not-inlined false"), plain.out());
        // and the library, which adds the data path's directives where a JVM has none, is told not to
        assertTrue(plain.out().contains("[rank 0] rc.jit.directives false"), plain.out());
        assertTrue(lean.out().contains("[rank 0] rc.jit.directives null"), lean.out());
        LaunchResult quick = oneRank(DirectivesChild.class, "--jit", "quick", "--jvm-arg=-Drc.jit.directives=true");
        assertEquals(0, quick.code(), quick.err());
        assertTrue(quick.out().contains("[rank 0] rc.jit.directives true"), "the user's choice wins: " + quick.out());
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aLauncherStoppedBySigtermLeavesNoDirectivesFileBehind(@TempDir Path tmp) throws Exception {
        Process launcher = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
                "--nproc-per-node", "1", "--class-data", "off", "--jit", "focused", "--grace-ms", "500", "--",
                SleepingChild.class.getName()).redirectErrorStream(true).start();
        try {
            var out = new java.io.BufferedReader(new java.io.InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8));
            String line;
            do {   // whatever the JVMs print before it (warnings on standard error, merged here)
                line = out.readLine();
            } while (line != null && !line.equals("[rank 0] running"));
            assertEquals("[rank 0] running", line);
            assertEquals(1, filesIn(tmp).stream().filter(f -> f.startsWith("rc-compiler-directives-")).count(),
                    "the running launch's directives file");
            launcher.destroy();   // SIGTERM: shutdown hooks run, finally blocks do not
            assertTrue(launcher.waitFor(30, TimeUnit.SECONDS));
            assertEquals(List.of(), filesIn(tmp));
        } finally {
            launcher.destroyForcibly();
        }
    }

    private static List<String> filesIn(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    @Test
    void theNoticeIsRecognisedAndNothingElse() {
        assertTrue(CompilerDirectives.isNotice("2 compiler directives added\n"));
        assertTrue(CompilerDirectives.isNotice("1 compiler directives added"));
        assertFalse(CompilerDirectives.isNotice("step 2 compiler directives added by hand\n"));
        assertFalse(CompilerDirectives.isNotice("loss 0.25\n"));
    }

    private static String directivesJson() throws java.io.IOException {
        return CompilerDirectives.json();
    }

    @Test
    void theDirectivesLayerTheLoopOfEveryTransportTheMeshRunsOn() throws Exception {
        String json = directivesJson();
        // the mesh runs on native epoll on Linux and on NIO elsewhere: directives for one of them only left the
        // other's whole read path inlined into its loop (one large compile, compiled again after each deoptimization)
        for (String loop : List.of("io/netty/channel/nio/NioIoHandler.run", "io/netty/channel/epoll/EpollIoHandler.run",
                "io/netty/channel/epoll/EpollIoHandler.processReady",
                "io/netty/channel/epoll/AbstractEpollStreamChannel$EpollStreamUnsafe.epollInReady",
                "io/netty/channel/epoll/AbstractEpollStreamChannel.doWrite")) {
            assertTrue(json.contains("\"-" + loop + "\""), loop + " is not kept out of its callers in " + CompilerDirectives.DATA_PATH_RESOURCE);
        }
    }

    @Test
    void everyMethodTheDirectivesNameExists() throws Exception {
        String json = directivesJson();
        Matcher m = Pattern.compile("\"-?([\\w/$]+)\\.(\\w+|\\*)\"").matcher(json);
        List<String> checked = new ArrayList<>();
        while (m.find()) {
            String type = m.group(1).replace('/', '.');
            if (type.endsWith("*") || type.equals("*")) {
                continue;
            }
            Class<?> c = Class.forName(type, false, getClass().getClassLoader());
            String method = m.group(2);
            if (!method.equals("*")) {
                assertTrue(Arrays.stream(c.getDeclaredMethods()).map(Method::getName).anyMatch(method::equals),
                        type + " has no method " + method + " any more: update " + CompilerDirectives.RESOURCE + " or " + CompilerDirectives.DATA_PATH_RESOURCE);
            }
            checked.add(type + "." + method);
        }
        assertTrue(checked.size() >= 10, "checked " + checked);
    }
}
