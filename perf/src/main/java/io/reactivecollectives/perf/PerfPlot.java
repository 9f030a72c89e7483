package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code collectives-plot}: bus bandwidth against message size, one line per implementation, from
 * the raw tables of {@code bin/collectives-perf} and nccl-tests (their layout: the out-of-place
 * busbw) and of the peers' scripts ({@code
 * perf/scripts/peer_compare.sh} writes {@code <impl>-<op>-<round>.txt}: {@code rc}, {@code gloo},
 * {@code mpi_tcp}, {@code mpi_shm}); each point is the median busbw of a size over the rounds.
 * Writes PNG or SVG by the output file's extension.
 *
 * <pre>bin/collectives-plot --op all_reduce -o perf/results/busbw-all_reduce.svg perf/results/2026-11-23-peer-compare</pre>
 */
@Command(name = "collectives-plot", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Plots busbw against size from collectives-perf and peer tables (PNG or SVG by extension).")
public final class PerfPlot implements Callable<Integer>, Cli.Validated {

    /** How the peer scripts' implementation prefixes read in the legend. */
    static final Map<String, String> NAMES = Map.of("rc", "reactive-collectives", "gloo", "PyTorch gloo",
            "mpi_tcp", "Open MPI (TCP)", "mpi_shm", "Open MPI (shared memory)", "nccl", "NCCL");

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "table files, or directories of <impl>-<op>-<round>.txt tables")
    List<Path> paths = new ArrayList<>();

    @Option(names = "--op", defaultValue = "all_reduce", description = "the collective plotted (default ${DEFAULT-VALUE})")
    String op;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "FILE.png or FILE.svg (repeatable)")
    List<Path> outputs = new ArrayList<>();

    @Option(names = "--title", description = "chart title (default: the op and the run's world size)")
    String title;

    @Option(names = "--width", defaultValue = "900", description = "pixels (default ${DEFAULT-VALUE})")
    int width;

    @Option(names = "--height", defaultValue = "560", description = "pixels (default ${DEFAULT-VALUE})")
    int height;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(Cli.execute(new PerfPlot(), args));
    }

    @Override
    public void validate() {
        for (Path p : outputs) {
            String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
            if (!n.endsWith(".png") && !n.endsWith(".svg")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "-o " + p + ": name a .png or .svg file");
            }
        }
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "no such file or directory: " + p);
            }
        }
        if (width < 100 || height < 100 || width > MAX_PIXELS || height > MAX_PIXELS) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--width and --height must be 100 to " + MAX_PIXELS
                    + " pixels, got " + width + " x " + height);
        }
        if (!BusFactor.known(op)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--op " + op + " is not one of "
                    + String.join(", ", BusFactor.names()));
        }
    }

    @Override
    public Integer call() throws IOException {
        Map<String, TreeMap<Long, List<Double>>> series = read(paths, op);
        if (series.isEmpty()) {
            spec.commandLine().getErr().println("collectives-plot: no " + op + " rows in " + paths);
            return 1;
        }
        XYChart chart = chart(series, title != null ? title : "busbw of " + op, width, height);
        for (Path out : outputs) {
            try {
                write(chart, out);
            } catch (IOException e) {   // a directory that cannot be made, a file that cannot be written: one line
                spec.commandLine().getErr().println("collectives-plot: cannot write -o " + out + ": "
                        + e.getClass().getSimpleName() + " " + e.getMessage());
                return Cli.USAGE;
            }
            spec.commandLine().getOut().println("wrote " + out);
        }
        return 0;
    }

    /** The largest --width and --height: a bigger image does not fit AWT's raster (its error was a stack trace). */
    static final int MAX_PIXELS = 10_000;

    /** Writes {@code chart} to {@code out} (PNG or SVG by its extension), making its directory if needed. */
    private static void write(XYChart chart, Path out) throws IOException {
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (var os = Files.newOutputStream(out)) {
            if (out.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".svg")) {
                VectorGraphicsEncoder.saveVectorGraphic(chart, os, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            } else {
                BitmapEncoder.saveBitmap(chart, os, BitmapEncoder.BitmapFormat.PNG);
            }
        }
    }

    /**
     * The busbw values of {@code op} by implementation (the file name's part before
     * {@code -<op>-}, else the file's name) and size, over every table in {@code paths}.
     */
    static Map<String, TreeMap<Long, List<Double>>> read(List<Path> paths, String op) throws IOException {
        Map<String, TreeMap<Long, List<Double>>> out = new TreeMap<>();
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    s.filter(f -> f.getFileName().toString().endsWith(".txt")).sorted().forEach(files::add);
                }
            } else {
                files.add(p);
            }
        }
        for (Path f : files) {
            String impl = implementation(f.getFileName().toString(), op);
            // nccl-tests' layout (ours since it is exact) names the op once, in its header; the file name otherwise
            String fileOp = f.getFileName().toString().contains("-" + op + "-") ? op : null;
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                if (line.startsWith(NcclTestsFormat.STARTING)) {
                    fileOp = NcclTestsFormat.collective(line.substring(NcclTestsFormat.STARTING.length()).trim());
                    continue;
                }
                String[] c = line.trim().split("\\s+");
                try {
                    if (c.length >= 6 && c[0].equals(op) && c[1].matches("\\d+")) {
                        // the peers' scripts (and our layout before): op bytes count time_us algbw busbw
                        add(out, impl, Long.parseLong(c[1]), Double.parseDouble(c[5]));
                    } else if (!line.startsWith("#") && c.length >= 13 && c[0].matches("\\d+") && op.equals(fileOp)) {
                        // nccl-tests: size count type redop root, then time algbw busbw #wrong out of place (busbw: 8th)
                        add(out, impl, Long.parseLong(c[0]), Double.parseDouble(c[7]));
                    }
                } catch (NumberFormatException ignored) {
                    // not a row
                }
            }
        }
        return out;
    }

    private static void add(Map<String, TreeMap<Long, List<Double>>> out, String impl, long bytes, double busbw) {
        out.computeIfAbsent(impl, k -> new TreeMap<>()).computeIfAbsent(bytes, k -> new ArrayList<>()).add(busbw);
    }

    /** {@code gloo} of {@code gloo-all_reduce-2.txt}; the name without {@code .txt} otherwise. */
    static String implementation(String fileName, String op) {
        String base = fileName.endsWith(".txt") ? fileName.substring(0, fileName.length() - 4) : fileName;
        int at = base.indexOf("-" + op);
        return at > 0 ? base.substring(0, at) : base;
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    static XYChart chart(Map<String, TreeMap<Long, List<Double>>> series, String title, int width, int height) {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title)
                .xAxisTitle("message size (bytes)").yAxisTitle("busbw (GB/s), median over rounds").build();
        // sizes on a log2 scale: x is log2(bytes) on a linear axis, labelled in bytes (XChart's logarithmic
        // axis ignores a tick label function)
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setMarkerSize(6);
        chart.getStyler().setxAxisTickLabelsFormattingFunction(v -> bytes(Math.pow(2, v)));
        // reactive-collectives first, then the peers in a fixed order
        List<String> order = new ArrayList<>(series.keySet());
        order.sort((a, b) -> rankOf(a) != rankOf(b) ? Integer.compare(rankOf(a), rankOf(b)) : a.compareTo(b));
        for (String impl : order) {
            TreeMap<Long, List<Double>> bySize = series.get(impl);
            double[] x = new double[bySize.size()];
            double[] y = new double[bySize.size()];
            int i = 0;
            for (Map.Entry<Long, List<Double>> e : bySize.entrySet()) {
                x[i] = Math.log(e.getKey()) / Math.log(2);
                y[i] = median(e.getValue());
                i++;
            }
            chart.addSeries(NAMES.getOrDefault(impl, impl), x, y);
        }
        return chart;
    }

    private static int rankOf(String impl) {
        int i = List.of("rc", "gloo", "mpi_tcp", "mpi_shm").indexOf(impl);
        return i < 0 ? 99 : i;
    }

    /** 4 B, 64 KiB, 16 MiB (a tick between powers of two in kB or MB). */
    static String bytes(double v) {
        long b = Math.round(v);
        if (b >= 1L << 30 && b % (1L << 30) == 0) {
            return (b >> 30) + " GiB";
        }
        if (b >= 1L << 20 && b % (1L << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b >= 1L << 10 && b % (1L << 10) == 0) {
            return (b >> 10) + " KiB";
        }
        if (b >= 1_000_000) {
            return String.format(Locale.ROOT, "%.0f MB", v / 1e6);
        }
        if (b >= 1_000) {
            return String.format(Locale.ROOT, "%.0f kB", v / 1e3);
        }
        return b + " B";
    }
}
