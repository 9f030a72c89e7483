package io.reactivecollectives.samples.train;

import io.reactivecollectives.core.testing.FreePorts;
import io.reactivecollectives.tools.launch.Launcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No single point of failure in the rendezvous (issue 40): three nodes' launchers, separate JVMs on
 * loopback, hold the store together ({@code collectives-run --store-peers}, one Raft replica each),
 * one rank each. Node 0's launcher, which held the store alone before, is killed with its rank
 * (SIGKILL, the whole host lost) at 10% of the steps: the two others shrink through their replicas and
 * train on; node 0's launcher started again joins its rank back; the job ends on every node with exit
 * 0, every step applied once and identical parameters on all three ranks.
 */
class StoreReplicaLossTest {

    private static final int STEPS = 8000;
    private static final Pattern STEP = Pattern.compile("step +(\\d+)/" + STEPS);

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void losingTheNodeThatHeldTheStoreStopsNothing() throws Exception {
        Path dir = Files.createTempDirectory("rc-store-loss");
        String peers = "127.0.0.1:" + FreePorts.pair() + ",127.0.0.1:" + FreePorts.pair() + ",127.0.0.1:" + FreePorts.pair();
        List<Process> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(launcher(i, peers, dir.resolve("node" + i + ".log")));
            }
            // early enough that the launcher started again (a JVM with its replica, then its rank's) joins
            // well before the two others finish: else it is told the job ended, and exits 0 without joining
            waitForStep(dir.resolve("node0.log"), STEPS * 10 / 100, nodes.get(0));   // rank 0 reports the steps
            Process lost = nodes.get(0);
            // the launcher first: killed after its rank, it could restart the rank before it died, and that
            // orphan would join the group as a fourth rank
            List<ProcessHandle> tree = new ArrayList<>(List.of(lost.toHandle()));
            tree.addAll(lost.descendants().toList());
            for (ProcessHandle h : tree) {
                new ProcessBuilder("kill", "-KILL", Long.toString(h.pid())).start().waitFor();
            }
            lost.waitFor(30, TimeUnit.SECONDS);
            nodes.set(0, launcher(0, peers, dir.resolve("node0-again.log")));
            for (int i = 0; i < 3; i++) {
                assertTrue(nodes.get(i).waitFor(200, TimeUnit.SECONDS), "node " + i + " did not finish");
            }
            String all = "";
            for (String f : List.of("node0.log", "node0-again.log", "node1.log", "node2.log")) {
                all += "\n--- " + f + "\n" + Files.readString(dir.resolve(f), StandardCharsets.UTF_8);
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(0, nodes.get(i).exitValue(), "node " + i + all);
            }
            String again = Files.readString(dir.resolve("node0-again.log"), StandardCharsets.UTF_8);
            assertTrue(again.contains("[rank 0] joined the running job as rank 0 of 3"), all);
            assertTrue(Pattern.compile("recovered at step \\d+: now rank \\d of 2").matcher(all).find(), all);
            assertTrue(all.contains("steps: " + STEPS + " of " + STEPS + ", each applied once"), all);
            assertTrue(all.contains("parameters identical on all 3 ranks: yes"), all);
        } finally {
            for (Process p : nodes) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
    }

    private static Process launcher(int node, String peers, Path log) throws IOException {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(java, "-cp", System.getProperty("java.class.path"), Launcher.class.getName(),
                "--nproc-per-node", "1", "--nnodes", "3", "--node-rank", Integer.toString(node), "--store-peers", peers,
                "--max-restarts", "2", "--class-data", "off", "--", DataParallelTraining.class.getName(),
                "--steps", Integer.toString(STEPS), "--log-every", "100", "--hidden", "64");
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void waitForStep(Path log, int step, Process node) throws Exception {
        while (true) {
            String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            Matcher m = STEP.matcher(text);
            int last = 0;
            while (m.find()) {
                last = Integer.parseInt(m.group(1));
            }
            if (last >= step) {
                return;
            }
            if (!node.isAlive()) {
                Thread.sleep(500);   // its last lines
                throw new AssertionError("node ended (exit " + node.exitValue() + ") before step " + step + ":\n"
                        + Files.readString(log, StandardCharsets.UTF_8));
            }
            Thread.sleep(20);
        }
    }
}
