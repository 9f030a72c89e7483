package io.reactivecollectives.perf;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table's #wrong column, the nccl-tests footer, CSV and JSON. */
class PerfReportTest {

    private static PerfReport report(long wrongA, long wrongB) {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("world", "2");
        meta.put("op", "all_reduce");
        PerfReport r = new PerfReport(meta);
        r.add(new PerfReport.Row("all_reduce", 4, 1, "float32", "sum", -1, 12.34, 0.000324, 0.000324, wrongA));
        r.add(new PerfReport.Row("all_reduce", 1048576, 262144, "float32", "sum", -1, 900.0, 1.165, 1.5, wrongB));
        return r;
    }

    @Test
    void tableKeepsTheSixColumnsThePeersPrintAndAddsWrong() {
        assertEquals("            op        bytes      count    time_us    algbw    busbw #wrong", PerfReport.columns());
        PerfReport r = report(0, 3);
        List<String> lines = r.rows().stream().map(PerfReport::line).toList();
        assertEquals("    all_reduce            4          1       12.3    0.000    0.000      0", lines.get(0));
        String[] cols = lines.get(1).trim().split("\\s+");
        assertEquals(List.of("all_reduce", "1048576", "262144", "900.0", "1.165", "1.500", "3"), List.of(cols));
        assertTrue(PerfReport.line(report(PerfReport.NOT_CHECKED, 0).rows().get(0)).endsWith("0.000    N/A"));
        assertEquals("# reactive-collectives world=2 op=all_reduce", r.title());
    }

    @Test
    void footerSaysWhatWasWrongAndTheAverageBusBandwidth() {
        assertEquals(List.of("# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 0.750"), report(0, 0).footer());
        PerfReport bad = report(0, 3);
        assertEquals(List.of("# Out of bounds values : 3 FAILED", "# Avg bus bandwidth    : 0.750"), bad.footer());
        assertFalse(bad.passed());
        PerfReport unchecked = report(PerfReport.NOT_CHECKED, PerfReport.NOT_CHECKED);
        assertEquals("# Out of bounds values : N/A (not checked)", unchecked.footer().get(0));
        assertTrue(unchecked.passed());
    }

    @Test
    void csvAndJson() {
        PerfReport r = report(0, PerfReport.NOT_CHECKED);
        assertEquals("op,bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong\n"
                + "all_reduce,4,1,float32,sum,-1,12.340,0.000324,0.000324,0\n"
                + "all_reduce,1048576,262144,float32,sum,-1,900.000,1.165000,1.500000,\n", r.csv());
        assertEquals("{\"run\": {\"world\": \"2\", \"op\": \"all_reduce\"}, \"rows\": ["
                + "{\"op\": \"all_reduce\", \"bytes\": 4, \"count\": 1, \"type\": \"float32\", \"redop\": \"sum\", \"root\": -1,"
                + " \"time_us\": 12.340, \"algbw_gbps\": 0.000324, \"busbw_gbps\": 0.000324, \"wrong\": 0}, "
                + "{\"op\": \"all_reduce\", \"bytes\": 1048576, \"count\": 262144, \"type\": \"float32\", \"redop\": \"sum\", \"root\": -1,"
                + " \"time_us\": 900.000, \"algbw_gbps\": 1.165000, \"busbw_gbps\": 1.500000, \"wrong\": null}], "
                + "\"avg_busbw_gbps\": 0.750162, \"wrong\": 0}\n", r.json());
        assertEquals("\"a\\\"b\\\\c\\n\"", PerfReport.quote("a\"b\\c\n"));
    }
}
