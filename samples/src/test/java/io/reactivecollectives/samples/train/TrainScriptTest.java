package io.reactivecollectives.samples.train;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/collectives-train's own variable, NPROC, is checked by the script and named when it is not a
 * count of ranks (before, collectives-run answered "--nproc-per-node must be >= 1, got 0" or
 * "Invalid value for option '--nproc-per-node': 'abc' is not an int", naming an option the user never
 * typed), and --help says NPROC sets the ranks. The check runs before anything is built or started.
 */
class TrainScriptTest {

    private static final Path SCRIPT = Path.of("..", "bin", "collectives-train").toAbsolutePath().normalize();

    private record Result(int code, String out, String err) {
    }

    /**
     * Runs the script with a PATH of the few tools it uses and no Maven, and a build directory that
     * does not exist: past its checks it stops at once ("Maven (mvn) is needed", 127), never building.
     */
    private static Result script(Path bin, String nproc, String... args) throws Exception {
        for (String tool : new String[] {"bash", "dirname", "find", "ls", "grep", "head", "cat", "tr"}) {
            Path link = bin.resolve(tool);
            if (!Files.exists(link)) {
                Files.createSymbolicLink(link, Path.of("/usr/bin", tool).toRealPath());
            }
        }
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(bin.resolve("bash").toString(), SCRIPT.toString()));
        cmd.addAll(java.util.List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("NPROC", nproc);
        pb.environment().put("RC_BUILD_DIR", "no-such-build-dir");
        pb.environment().put("PATH", bin.toString());
        Process p = pb.start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the script did not end");
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aBadNprocIsOneLineNamingNprocWithExitCode2(@TempDir Path bin) throws Exception {
        assertTrue(Files.isRegularFile(SCRIPT), SCRIPT.toString());
        for (String bad : new String[] {"0", "-1", "abc", "2 --bogus", "00"}) {
            Result r = script(bin, bad, "--steps", "5");
            assertEquals(2, r.code(), bad + ": " + r.err());
            assertEquals("collectives-train: NPROC must be a whole number of ranks >= 1, got '" + bad + "'\n", r.err(), bad);
            assertEquals("", r.out());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void helpSaysWhatNprocDoes(@TempDir Path bin) throws Exception {
        Result r = script(bin, "0", "--engine", "djl", "--help", "--steps", "5");
        // the script's own lines come first; the trainer's --help needs the build, which is not there
        assertTrue(r.err().contains("Maven (mvn) is needed"), r.err());
        assertTrue(r.out().contains("NPROC=N in the environment sets the ranks (local processes; default 2)"), r.out());
        assertTrue(!r.err().contains("NPROC must be"), "--help is answered whatever NPROC says: " + r.err());
    }
}
