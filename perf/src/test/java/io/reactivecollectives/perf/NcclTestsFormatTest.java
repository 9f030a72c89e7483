package io.reactivecollectives.perf;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Our lines are nccl-tests' own, byte for byte: real nccl-tests output (src/test/resources/nccl-tests,
 * sources in its README.md) printed again from its values.
 */
class NcclTestsFormatTest {

    static List<String> fixture(String name) throws IOException {
        try (InputStream in = NcclTestsFormatTest.class.getResourceAsStream("/nccl-tests/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    private static NcclTestsFormat.Place place(String time, String algbw, String busbw, String wrong) {
        return new NcclTestsFormat.Place(Double.parseDouble(time), Double.parseDouble(algbw), Double.parseDouble(busbw),
                wrong.equals("N/A") ? PerfReport.NOT_CHECKED : Long.parseLong(wrong));
    }

    /** The row printed again from the values a real row shows. */
    private static String reprint(String real) {
        String[] c = real.trim().split("\\s+");
        return NcclTestsFormat.row(Long.parseLong(c[0]), Long.parseLong(c[1]), c[2], c[3], Integer.parseInt(c[4]),
                place(c[5], c[6], c[7], c[8]), place(c[9], c[10], c[11], c[12]));
    }

    @Test
    void headerAndRowsAreNcclTests217AndLater() throws IOException {
        List<String> real = fixture("all_gather_perf-2.17.6-dgx-spark.txt");
        assertEquals(real.subList(7, 11), NcclTestsFormat.columns(), "#, then the column header with its trailing spaces");
        assertEquals(real.get(11), reprint(real.get(11)));
        assertEquals(real.get(12), NcclTestsFormat.footer(0, 1, "all_gather_perf").get(0));
        assertEquals(real.get(6).replace("[000f:01:00]", "[0000:00:00]"),
                NcclTestsFormat.device(1, 1278829, "spark-3995", 0, "NVIDIA GB10"));
        assertEquals(real.get(1), "# Collective test starting: " + NcclTestsFormat.program("all_gather"));

        List<String> r220 = fixture("all_reduce_perf-2.20.0-dgx-spark.txt");
        assertEquals(r220.get(2), NcclTestsFormat.parameters(8192, 8589934592L, 2, 0, 10, 100, 1));
        for (String row : r220.subList(11, 15)) {
            assertEquals(row, reprint(row));
        }
    }

    @Test
    void footerIsNcclTests() throws IOException {
        List<String> real = fixture("all_reduce_perf-gb200-coreweave.txt");
        assertEquals(real.subList(10, 12), NcclTestsFormat.footer(0, 745.53, "all_reduce_perf").subList(0, 2));
        assertEquals(List.of("# Out of bounds values : 4 FAILED", "# Avg bus bandwidth    : 0.000123 ", "#",
                "# Collective test concluded: alltoall_perf", "#", ""), NcclTestsFormat.footer(4, 0.000123, "alltoall_perf"));
    }

    @Test
    void numbersAsCPrintsThem() {
        assertEquals("745.531", NcclTestsFormat.cG(745.531));
        assertEquals("745.53", NcclTestsFormat.cG(745.53004));
        assertEquals("1.23457e+06", NcclTestsFormat.cG(1234567));
        assertEquals("123457", NcclTestsFormat.cG(123456.7));
        assertEquals("1e-05", NcclTestsFormat.cG(0.00001));
        assertEquals("0", NcclTestsFormat.cG(0));
        assertEquals("0.12", NcclTestsFormat.cFixed(0.125, 2), "the binary value, half-even, as glibc");
        assertEquals("0.13", NcclTestsFormat.cFixed(0.1251, 2));
        assertEquals("2.67", NcclTestsFormat.cFixed(2.675, 2), "2.675 is 2.67499999... in binary: glibc prints 2.67");
        assertEquals("  35.15", NcclTestsFormat.floatStr(35.15, 7));
        assertEquals("1806.70", NcclTestsFormat.floatStr(1806.7, 7), "2.19's getFloatStr: two decimals while they fit");
        assertEquals("10094.2", NcclTestsFormat.floatStr(10094.2, 7));
        assertEquals(" 453650", NcclTestsFormat.floatStr(453650, 7));
        assertEquals("123457", NcclTestsFormat.floatStr(123456.7, 6));
        assertEquals("1.2e+07", NcclTestsFormat.floatStr(12345678, 7));
        assertEquals("  0.00", NcclTestsFormat.floatStr(0.0001, 6));
        assertEquals("float", NcclTestsFormat.typeName(io.reactivecollectives.core.DType.FLOAT32));
        assertEquals("half", NcclTestsFormat.typeName(io.reactivecollectives.core.DType.FLOAT16));
        assertEquals("bfloat16", NcclTestsFormat.typeName(io.reactivecollectives.core.DType.BFLOAT16));
        assertEquals("alltoall_perf", NcclTestsFormat.program("all_to_all"));
        String unchecked = NcclTestsFormat.row(8, 2, "float", "sum", -1, new NcclTestsFormat.Place(12.5, 0, 0, PerfReport.NOT_CHECKED),
                new NcclTestsFormat.Place(12.5, 0, 0, PerfReport.NOT_CHECKED));
        assertEquals("           8             2     float     sum      -1    12.50    0.00    0.00    N/A    12.50    0.00    0.00    N/A",
                unchecked);
    }
}
