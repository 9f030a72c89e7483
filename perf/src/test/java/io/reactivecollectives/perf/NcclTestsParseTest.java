package io.reactivecollectives.perf;

import io.reactivecollectives.tools.cli.Cli;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One parser, written as users' scripts parse nccl-tests ({@link NcclTestsParser}), reads real
 * nccl-tests output and a real 2-rank collectives-perf run into the same structure.
 */
class NcclTestsParseTest {

    /** A real run: two ranks in this JVM with the launcher's store, rank 0's output returned. */
    static List<String> ourRun(String... args) throws Exception {
        TcpStoreServer server = TcpStoreServer.builder().host("127.0.0.1").port(0).start().block(Duration.ofSeconds(30));
        ExecutorService ranks = Executors.newFixedThreadPool(2);
        ByteArrayOutputStream rank0 = new ByteArrayOutputStream();
        try {
            List<Future<Integer>> exits = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                List<String> a = new ArrayList<>(List.of(args));
                a.addAll(List.of("--world", "2", "--rank", String.valueOf(r), "--store-port", String.valueOf(server.port())));
                CollectivesPerf o = new CollectivesPerf();
                Cli.commandLine(o, System.out, System.err).parseArgs(a.toArray(new String[0]));
                o.validate();
                PrintStream out = new PrintStream(r == 0 ? rank0 : OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
                exits.add(ranks.submit(() -> new PerfRank(o, out).run()));
            }
            for (Future<Integer> exit : exits) {
                assertEquals(0, exit.get(90, TimeUnit.SECONDS));
            }
        } finally {
            ranks.shutdownNow();
            server.close();
        }
        return rank0.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theSameScriptReadsNcclTestsAndUs() throws Exception {
        NcclTestsParser.Parsed real = NcclTestsParser.parse(NcclTestsFormatTest.fixture("all_reduce_perf-gb200-coreweave.txt"));
        assertEquals(5, real.rows().size());
        assertEquals(new NcclTestsParser.Row(536870912L, 586.06, 576.74), real.rows().get(0));
        assertEquals(Set.of(13), real.columns());
        assertEquals(745.53, real.avgBusbw());
        for (String f : List.of("all_gather_perf-2.17.6-dgx-spark.txt", "all_reduce_perf-2.20.0-dgx-spark.txt")) {
            NcclTestsParser.Parsed p = NcclTestsParser.parse(NcclTestsFormatTest.fixture(f));
            assertEquals(Set.of(13), p.columns(), f);
            assertTrue(!p.rows().isEmpty(), f);
        }

        List<String> out = ourRun("all_reduce", "-b", "8", "-e", "4K", "-f", "8", "-n", "5", "-w", "1", "--min-time-ms", "1",
                "--warmup-time-ms", "0");
        String text = String.join("\n", out);
        NcclTestsParser.Parsed ours = NcclTestsParser.parse(out);
        assertEquals(real.columns(), ours.columns(), text);
        assertEquals(List.of(8L, 64L, 512L, 4096L), ours.rows().stream().map(NcclTestsParser.Row::size).toList(), text);
        assertNotNull(ours.avgBusbw(), text);
        double mean = ours.rows().stream().mapToDouble(r -> r.busbwOutOfPlace() + r.busbwInPlace()).sum() / (2.0 * ours.rows().size());
        assertEquals(mean, ours.avgBusbw(), 0.006 + 1e-5 * mean, "the footer's average is the mean of both places' busbw: " + text);
        for (NcclTestsParser.Row r : ours.rows()) {
            assertTrue(r.busbwOutOfPlace() >= 0 && r.busbwInPlace() >= 0, text);
        }

        // the rest as nccl-tests prints it: its header lines, then the rows, then its footer
        List<String> real217 = NcclTestsFormatTest.fixture("all_gather_perf-2.17.6-dgx-spark.txt");
        assertEquals("# Collective test starting: all_reduce_perf", out.get(1), text);
        assertTrue(out.get(2).startsWith("# nThread 1 nGpus 1 minBytes 8 maxBytes 4096 step: 8(factor) warmup iters: 1 iters: 5 "),
                text);
        assertEquals(List.of("#", "# Using devices"), out.subList(3, 5), text);
        assertTrue(out.get(5).matches("#  Rank  0 Group  0 Pid +\\d+ on +\\S+ device  0 \\[0000:00:00\\] CPU, .*"), text);
        assertTrue(out.get(6).matches("#  Rank  1 Group  0 Pid +\\d+ on +\\S+ device  1 \\[0000:00:00\\] CPU, .*"), text);
        assertEquals(real217.subList(7, 11), out.subList(7, 11), text);
        assertTrue(out.get(11).matches(" {11}8 {13}2 {5}float {5}sum {6}-1 .* {7}0 .* {7}0"), text);
        assertEquals(List.of("# Out of bounds values : 0 OK"), out.subList(15, 16), text);
        assertEquals(List.of("#", "# Collective test concluded: all_reduce_perf", "#", ""), out.subList(17, 21), text);
        assertEquals(21, out.size(), text);
    }
}
