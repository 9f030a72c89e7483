package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** collectives-plot reads raw tables of us and the peers and writes PNG and SVG. */
class PerfPlotTest {

    private static final String HEADER = "# x world=2 op=all_reduce\n            op        bytes      count    time_us    algbw    busbw\n";

    @Test
    void readsMediansPerImplementationAndWritesPngAndSvg(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("rc-all_reduce-1.txt"), HEADER
                + "    all_reduce            4          1       30.6    0.000    0.100      0\n"
                + "    all_reduce         1024        256       13.7    0.075    1.000      0\n"
                + "# Avg bus bandwidth    : 0.550\n");
        Files.writeString(dir.resolve("rc-all_reduce-2.txt"), HEADER
                + "    all_reduce            4          1       30.6    0.000    0.300\n"
                + "    all_reduce         1024        256       13.7    0.075    2.000\n");
        Files.writeString(dir.resolve("rc-all_reduce-3.txt"), HEADER
                + "    all_reduce            4          1       30.6    0.000    0.200\n");
        Files.writeString(dir.resolve("gloo-all_reduce-1.txt"), HEADER
                + "    all_reduce            4          1      220.4    0.000    0.010\n");
        Files.writeString(dir.resolve("gloo-broadcast-1.txt"), HEADER.replace("all_reduce", "broadcast")
                + "     broadcast            4          1      220.4    0.000    9.000\n");

        Map<String, TreeMap<Long, List<Double>>> s = PerfPlot.read(List.of(dir), "all_reduce");
        assertEquals(List.of("gloo", "rc"), List.copyOf(s.keySet()));
        assertEquals(0.2, PerfPlot.median(s.get("rc").get(4L)), 1e-12);
        assertEquals(1.5, PerfPlot.median(s.get("rc").get(1024L)), 1e-12);
        assertEquals(List.of(0.01), s.get("gloo").get(4L));

        Path png = dir.resolve("out/busbw.png");
        Path svg = dir.resolve("out/busbw.svg");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setProperty("java.awt.headless", "true");
        int code = Cli.commandLine(new PerfPlot(), new PrintStream(out, true), new PrintStream(err, true))
                .execute("--op", "all_reduce", "-o", png.toString(), "-o", svg.toString(), dir.toString());
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 4);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, head);
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg"), text.substring(0, Math.min(200, text.length())));
        assertTrue(text.contains("</svg>"), "a whole SVG document");
    }

    @Test
    void readsNcclTestsLayoutOursAndTheirs(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("ours.txt"), String.join("\n", NcclTestsFormatTest.fixture("all_reduce_perf-2.20.0-dgx-spark.txt")));
        Files.writeString(dir.resolve("a2a.txt"), "# Collective test starting: alltoall_perf\n"
                + "        8192          1024     float    none      -1    35.15    0.23    0.11       0    30.33    0.27    0.13       0\n");
        Map<String, TreeMap<Long, List<Double>>> s = PerfPlot.read(List.of(dir), "all_reduce");
        assertEquals(List.of("ours"), List.copyOf(s.keySet()));
        assertEquals(List.of(8192L, 16384L, 32768L, 65536L), List.copyOf(s.get("ours").keySet()));
        assertEquals(List.of(0.23), s.get("ours").get(8192L), "the out-of-place busbw");
        assertEquals(List.of(0.11), PerfPlot.read(List.of(dir), "all_to_all").get("a2a").get(8192L));
    }

    @Test
    void namesAndLabels() {
        assertEquals("mpi_tcp", PerfPlot.implementation("mpi_tcp-all_reduce-3.txt", "all_reduce"));
        assertEquals("mine", PerfPlot.implementation("mine.txt", "all_reduce"));
        assertEquals("4 B", PerfPlot.bytes(4));
        assertEquals("64 KiB", PerfPlot.bytes(65536));
        assertEquals("16 MiB", PerfPlot.bytes(16 << 20));
        assertEquals("100 kB", PerfPlot.bytes(1e5));
    }

    /**
     * A huge --width or --height and an output that cannot be written are one line with exit code 2:
     * before, AWT's "Dimensions (width=100000 height=100000) are too large" and NoSuchFileException /
     * FileAlreadyExistsException came with their stack traces, exit code 1.
     */
    @Test
    void hugeImagesAndUnwritableOutputsAreOneLine(@TempDir Path dir) throws Exception {
        Path table = dir.resolve("reactive-collectives-all_reduce-1.txt");
        Files.writeString(table, "           8             2     float     sum      -1     8.76    0.00    0.50       0    20.18    0.00    0.50       0\n");
        Path aFile = dir.resolve("a-file");
        Files.writeString(aFile, "");
        String[][] cases = {
            {"--width", "100000", "--height", "100000", "-o", dir.resolve("x.png").toString(),
                "collectives-plot: --width and --height must be 100 to 10000 pixels, got 100000 x 100000 (see --help)"},
            {"--width", "10001", "-o", dir.resolve("x.png").toString(),
                "collectives-plot: --width and --height must be 100 to 10000 pixels, got 10001 x 560 (see --help)"},
            {"-o", aFile.resolve("x.svg").toString(), "collectives-plot: cannot write -o " + aFile.resolve("x.svg") + ": "},
        };
        for (String[] c : cases) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            String[] args = java.util.Arrays.copyOf(c, c.length);
            args[c.length - 1] = table.toString();
            int code = Cli.commandLine(new PerfPlot(), new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true))
                    .execute(args);
            String e = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, code, e);
            assertEquals(1, e.lines().count(), e);
            assertTrue(e.startsWith(c[c.length - 1]), e);
        }
    }

    @Test
    void badOutputIsAUsageError(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.commandLine(new PerfPlot(), new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true))
                .execute("-o", dir.resolve("x.gif").toString(), dir.toString());
        assertEquals(2, code);
        assertEquals(1, err.toString(StandardCharsets.UTF_8).lines().count());
        ByteArrayOutputStream err2 = new ByteArrayOutputStream();
        int code2 = Cli.commandLine(new PerfPlot(), new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err2, true))
                .execute("--op", "bogus", "-o", dir.resolve("x.png").toString(), dir.toString());
        assertEquals(2, code2, err2.toString(StandardCharsets.UTF_8));
        String e = err2.toString(StandardCharsets.UTF_8);
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.contains("--op bogus is not one of ") && e.contains("all_reduce"), e);
    }
}
