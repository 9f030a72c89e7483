package io.reactivecollectives.samples.launch;

import io.reactivecollectives.samples.examples.CollectivesCheck;
import io.reactivecollectives.tools.launch.Launcher;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every collective across hosts, with hosts made of network namespaces by
 * {@code perf/scripts/netns_hosts.sh} (own hostname, /etc/hosts and address per host, a bridge
 * between them), the launcher on each host with torchrun's variables and nothing else: 4 hosts of
 * one rank, and 2 hosts of 2 ranks where each host's name maps to 127.0.1.1 (Debian's default),
 * where a rank that published loopback would be unreachable. Skipped, with the script's reason,
 * where namespaces cannot be made (not root, no CAP_NET_ADMIN).
 */
class MultiHostTest {

    private static final Path SCRIPT = Path.of("..", "perf", "scripts", "netns_hosts.sh");

    private static String runAcrossHosts(int hosts, int perHost, boolean debianHostnames) throws Exception {
        return runAcrossHosts(hosts, perHost, debianHostnames ? "--debian-hostname" : null, CollectivesCheck.class, 0);
    }

    private static String runAcrossHosts(int hosts, int perHost, String flag, Class<?> main, int expectedExit)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString(), "--hosts", Integer.toString(hosts)));
        if (flag != null) {
            cmd.add(flag);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        cmd.addAll(List.of("--", java, "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
                "--nproc-per-node", Integer.toString(perHost), "--nnodes", "{hosts}", "--node-rank", "{host}",
                "--master-addr", "h0", "--master-port", "29500", "--", main.getName()));
        Path log = Files.createTempFile("rc-multihost", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean done = p.waitFor(120, TimeUnit.SECONDS);
            if (!done) {
                p.destroy();
                p.waitFor(20, TimeUnit.SECONDS);   // the script's trap tears the namespaces down
            }
            String out = Files.readString(log, StandardCharsets.UTF_8);
            assumeTrue(p.exitValue() != 77, () -> "no network namespaces here: " + out.strip());
            assertTrue(done, "the run across hosts did not end within 120 s:\n" + out);
            assertEquals(expectedExit, p.exitValue(), out);
            return out;
        } finally {
            deleteQuietly(log);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a temporary file
        }
    }

    private static void assertEveryRankChecked(String out, int hosts, int perHost) {
        int world = hosts * perHost;
        for (int r = 0; r < world; r++) {
            String host = "h" + (r / perHost);
            assertTrue(out.contains("CHECK rank " + r + "/" + world + " host " + host + ": 19 collectives OK ("
                            + hosts + " host(s)"),
                    "rank " + r + " on " + host + " did not check every collective:\n" + out);
        }
    }

    /**
     * The last of 3 hosts loses its link mid-job: the others fail within 3 s of the link going down
     * (wall-clock times; the namespaces share the host's clock), naming the silent peer, then shrink
     * to the 2 ranks they reach and all-reduce there. Measured from the link going down, not from
     * the survivors' last good round: the victim's own start of {@code ip} (a fork from a JVM on a
     * loaded machine, hundreds of ms) falls between the two, with its heartbeats still arriving.
     */
    @Test
    void aDownedLinkFailsTheOthersWithinThreeSecondsAndTheyShrink() throws Exception {
        String out = runAcrossHosts(3, 1, "--keep-going", io.reactivecollectives.samples.examples.LinkDownCheck.class, 0);
        java.util.regex.Matcher down = java.util.regex.Pattern.compile("LINK DOWN rank 2 at (\\d+)").matcher(out);
        assertTrue(down.find(), "the victim did not report its link down:\n" + out);
        long downAt = Long.parseLong(down.group(1));
        for (int r = 0; r < 2; r++) {
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("DETECTED rank " + r + " after (\\d+) ms \\(at (\\d+)\\): (.*)").matcher(out);
            assertTrue(m.find(), "rank " + r + " did not report the failure:\n" + out);
            long afterDown = Long.parseLong(m.group(2)) - downAt;
            assertTrue(afterDown < 3000, "rank " + r + " learnt of it " + afterDown + " ms after the link went down:\n" + out);
            assertTrue(m.group(3).contains("peer 2 unresponsive"), m.group(3));
            assertTrue(out.contains("SHRUNK rank " + r + ": 2 ranks, sum 2.0 OK"), "rank " + r + " did not shrink:\n" + out);
        }
    }

    @Test
    void everyCollectiveIsRightAcrossFourHostsOfOneRank() throws Exception {
        assertEveryRankChecked(runAcrossHosts(4, 1, false), 4, 1);
    }

    @Test
    void everyCollectiveIsRightAcrossTwoHostsOfTwoRanksWhoseNamesMapToLoopback() throws Exception {
        assertEveryRankChecked(runAcrossHosts(2, 2, true), 2, 2);
    }
}
