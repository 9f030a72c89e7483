package io.reactivecollectives.samples.train;

import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.tools.launch.Launcher;
import me.tongfei.progressbar.ProgressBar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** collectives-train's arguments are checked before any rank runs; its progress bar keeps to its width. */
class TrainArgumentsTest {

    private record Result(int code, String out, String err) {
    }

    private static Result train(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.commandLine(new DataParallelTraining(), new PrintStream(out, true), new PrintStream(err, true)).execute(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void badArgumentsAreOneLineWithExitCode2() {
        String[][] cases = {
            {"--hook", "fp32"},
            {"--steps", "-1"},
            {"--batch", "0"},
            {"--lr", "zero"},
            {"--streaming", "--hook", "fp16"},
            {"--dtype", "float17"},
            {"--steps", "0"},
            {"--warmup-steps", "-3"},
            {"--lr", "Infinity"},
            {"--lr", "NaN"},
            {"--momentum", "1"},
            {"--layers", "-1"},
            {"--bucket-cap-kb", "9007199254740993"},
            {"--input", "100000", "--hidden", "100000"},
            {"--hidden", "30000", "--layers", "4"},
            {"--batch", "100000000", "--hidden", "100"},
            {"--classes", "1"},
        };
        for (String[] args : cases) {
            Result r = train(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), r.err());
            assertTrue(lines.get(0).startsWith("collectives-train: ") && lines.get(0).endsWith("(see --help)"), lines.get(0));
        }
        assertEquals("collectives-train: --hook fp32 is not one of allreduce, fp16, bf16, powersgd (see --help)",
                train("--hook", "fp32").err().strip());
        assertEquals("collectives-train: --classes must be >= 2, got 1 (see --help)", train("--classes", "1").err().strip());
        // no step would leave nothing to time (it printed NaN)
        assertEquals("collectives-train: --steps must be >= 1, got 0 (see --help)", train("--steps", "0").err().strip());
        assertEquals("collectives-train: --steps must be >= 1, got 0; --batch must be >= 1, got 0 (see --help)",
                train("--steps", "0", "--batch", "0").err().strip());
        assertEquals("collectives-train: layer 0 would hold 100000 x 100000 weights (--input, --hidden, --classes); at most"
                + " 2147483639 fit one array (see --help)", train("--input", "100000", "--hidden", "100000").err().strip());
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void underTheLauncherNothingIsLaunchedForABadArgumentAndHelpPrintsOnce() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Launcher.run(new String[] {"--nproc-per-node", "2", "--", DataParallelTraining.class.getName(), "--hook", "fp32"},
                new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(2, code, err.toString(StandardCharsets.UTF_8));
        assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count(), err.toString(StandardCharsets.UTF_8));
        assertEquals("", out.toString(StandardCharsets.UTF_8));

        out.reset();
        code = Launcher.run(new String[] {"--nproc-per-node", "2", "--", DataParallelTraining.class.getName(), "--help"},
                new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(0, code);
        String help = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, help.split("Usage: collectives-train", -1).length - 1, help);
        assertFalse(help.contains("[rank"), help);
        assertTrue(help.contains("allreduce, fp16, bf16, powersgd"), help);
    }

    @Test
    void progressLinesKeepWithinTheColumnsGiven() {
        for (int columns : new int[] {40, 71, 120}) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ProgressBar bar = DataParallelTrainer.progressBar(1000, columns, new PrintStream(bytes, true)).build()) {
                for (int i = 0; i < 1000; i++) {
                    bar.step();
                    if (i % 250 == 0) {
                        bar.refresh();
                    }
                }
            }
            String text = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("train"), text);
            for (String line : text.split("[\r\n]")) {
                assertTrue(line.length() < columns, columns + " columns: '" + line + "' has " + line.length());
            }
        }
        assertEquals(51, DataParallelTraining.progressColumns(Map.of("COLUMNS", "51")));
        assertEquals(80, DataParallelTraining.progressColumns(Map.of()));
    }
}
