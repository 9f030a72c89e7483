package io.reactivecollectives.tools.launch;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher with tiny child main classes, as separate JVMs. */
class LauncherTest {

    /** Prints its environment and exits 0. */
    public static final class EnvChild {
        public static void main(String[] args) {
            System.out.println("rank=" + System.getenv("RANK") + " local=" + System.getenv("LOCAL_RANK")
                    + " world=" + System.getenv("WORLD_SIZE") + " addr=" + System.getenv("MASTER_ADDR")
                    + " port=" + System.getenv("MASTER_PORT") + " args=" + String.join(",", args));
            System.err.println("err line from " + System.getenv("RANK"));
        }
    }

    /** Prints its JVM's {@code --enable-native-access} options and exits 0. */
    public static final class NativeAccessChild {
        public static void main(String[] args) {
            System.out.println("native access: " + java.lang.management.ManagementFactory.getRuntimeMXBean()
                    .getInputArguments().stream().filter(a -> a.startsWith("--enable-native-access")).toList());
        }
    }

    /** Rank {@code args[0]} exits with code {@code args[1]} after a moment; the others would run for a minute. */
    public static final class FailingChild {
        public static void main(String[] args) throws Exception {
            int rank = Integer.parseInt(System.getenv("RANK"));
            System.out.println("started " + rank);
            System.out.flush();
            if (rank == Integer.parseInt(args[0])) {
                Thread.sleep(500);
                System.exit(Integer.parseInt(args[1]));
            }
            Thread.sleep(60_000);
            System.out.println("should have been stopped " + rank);
        }
    }

    private static final class Captured {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        long millis;

        Captured run(String... argv) {
            long t0 = System.nanoTime();
            code = Launcher.run(argv, new PrintStream(out, true), new PrintStream(err, true));
            millis = (System.nanoTime() - t0) / 1_000_000;
            return this;
        }

        String out() {
            return out.toString(StandardCharsets.UTF_8);
        }

        String err() {
            return err.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void startsEveryRankWithTorchrunEnvironmentAndPrefixesOutput() {
        Captured c = new Captured().run("--nproc-per-node", "3", "--nnodes", "2", "--node-rank", "1",
                "--master-addr", "127.0.0.1", "--master-port", "29511", "--", EnvChild.class.getName(), "a", "b");
        assertEquals(0, c.code, c.err());
        Set<String> lines = new TreeSet<>(c.out().lines().toList());
        assertEquals(Set.of(
                "[rank 3] rank=3 local=0 world=6 addr=127.0.0.1 port=29511 args=a,b",
                "[rank 4] rank=4 local=1 world=6 addr=127.0.0.1 port=29511 args=a,b",
                "[rank 5] rank=5 local=2 world=6 addr=127.0.0.1 port=29511 args=a,b"), lines);
        assertTrue(c.err().contains("[rank 4] err line from 4"), c.err());
    }

    @Test
    void picksAFreePortWhenNoneIsGiven() {
        Captured c = new Captured().run("--nproc-per-node", "2", "--", EnvChild.class.getName());
        assertEquals(0, c.code, c.err());
        String port = c.out().lines().filter(l -> l.startsWith("[rank 0]")).findFirst().orElseThrow().replaceAll(".*port=(\\d+).*", "$1");
        assertTrue(Integer.parseInt(port) > 0);
        assertTrue(c.out().contains("[rank 1] rank=1 local=1 world=2 addr=127.0.0.1 port=" + port), c.out());
    }

    @Test
    void oneFailingRankStopsTheOthersAndItsExitCodeIsReturned() {
        Captured c = new Captured().run("--nproc-per-node", "3", "--grace-ms", "500", "--", FailingChild.class.getName(), "1", "42");
        assertEquals(42, c.code, c.err());
        assertTrue(c.millis < 30_000, "the others must be stopped, not waited for (took " + c.millis + " ms)");
        assertTrue(c.err().contains("rank 1 exited with code 42"), c.err());
        assertTrue(c.out().contains("[rank 0] started 0") && c.out().contains("[rank 2] started 2"), c.out());
        assertTrue(!c.out().contains("should have been stopped"), c.out());
        assertEquals(0, ProcessHandle.current().children().filter(ProcessHandle::isAlive).count(), "no child left running");
    }

    @Test
    void childrenGetNativeAccessUnlessTheirOptionsSayOtherwise() {
        Captured c = new Captured().run("--nproc-per-node", "1", "--", NativeAccessChild.class.getName());
        assertEquals(0, c.code, c.err());
        assertEquals("[rank 0] native access: [--enable-native-access=ALL-UNNAMED]", c.out().strip(), c.err());
        Captured own = new Captured().run("--nproc-per-node", "1", "--jvm-arg", "--enable-native-access=java.base",
                "--", NativeAccessChild.class.getName());
        assertEquals(0, own.code, own.err());
        assertEquals("[rank 0] native access: [--enable-native-access=java.base]", own.out().strip(), own.err());
    }

    @Test
    void badUsageIsRejected() {
        Captured c = new Captured().run("--nproc-per-node", "2", "--nnodes", "2", "--", EnvChild.class.getName());
        assertEquals(2, c.code);
        assertTrue(c.err().contains("--master-port is required"), c.err());
        Captured empty = new Captured().run("--nproc-per-node", "2", "--master-addr", "", "--", EnvChild.class.getName());
        assertEquals(2, empty.code, empty.err());
        assertTrue(empty.err().contains("--master-addr is empty"), empty.err());
        assertFalse(empty.out().contains("[rank"), "no rank started: " + empty.out());
    }
}
