package io.reactivecollectives.perf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scale harness prints its header and one checked row per world size, and gives its descriptors back. */
class ScaleHarnessTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoSmallWorldsGiveTwoRightRowsWithTheirDescriptorsBack() {
        String text = harness("--worlds", "2,3", "--iters", "2", "--warmup", "1", "--connect-timeout", "20");
        assertTrue(text.contains("in ONE JVM") && text.contains("real sockets"), text);
        List<String> rows = text.lines().filter(l -> l.startsWith("  ")).toList();
        assertEquals(2, rows.size(), text);
        for (String row : rows) {
            String[] f = row.trim().split("\\s+");
            assertEquals("yes", f[7], "SUM right: " + row);
            assertEquals("yes", f[10], "fds back: " + row);
            assertTrue(Long.parseLong(f[6]) > 0, "store operations counted: " + row);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aGridOfSixRanksSplitsIntoRowsAndColumnsThatComputeRightWithoutNewDescriptors() {
        assertEquals(2, ScaleGrid.rowLength(6));
        assertEquals(4, ScaleGrid.rowLength(16));
        assertEquals(1, ScaleGrid.rowLength(7));
        String text = harness("--worlds", "6", "--iters", "2", "--warmup", "1", "--connect-timeout", "20", "--grid");
        String grid = text.lines().filter(l -> l.contains(" grid 3x2 ")).findFirst().orElseThrow(() -> new AssertionError(text));
        assertTrue(grid.contains("rows ok, columns ok"), grid);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("fds/rank \\+(-?[0-9.]+)").matcher(grid);
        assertTrue(m.find(), grid);
        assertTrue(Double.parseDouble(m.group(1)) < 1, "the subgroups ride on the parent's connections: " + grid);
    }

    /** What the harness printed with {@code args}, once it exited 0. */
    private static String harness(String... args) {
        PrintStream out = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            code = new CommandLine(new ScaleHarness()).execute(args);
        } finally {
            System.setOut(out);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text);
        return text;
    }
}
