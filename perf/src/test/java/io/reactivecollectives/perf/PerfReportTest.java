package io.reactivecollectives.perf;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table's rows (both places), nccl-tests' footer, CSV and JSON. */
class PerfReportTest {

    private static NcclTestsFormat.Place place(double timeUs, double algbw, double busbw, long wrong) {
        return new NcclTestsFormat.Place(timeUs, algbw, busbw, wrong);
    }

    private static PerfReport report(long wrongA, long wrongB) {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("world", "2");
        meta.put("op", "all_reduce");
        PerfReport r = new PerfReport(meta);
        r.add(new PerfReport.Row("all_reduce", 4, 1, "float", "sum", -1, place(12.34, 0.000324, 0.000324, wrongA),
                place(12.0, 0.000333, 0.000333, wrongA)));
        r.add(new PerfReport.Row("all_reduce", 1048576, 262144, "float", "sum", -1, place(900.0, 1.165, 1.5, wrongB),
                place(800.0, 1.31, 2.5, 0)));
        return r;
    }

    @Test
    void rowsAreNcclTestsRows() {
        PerfReport r = report(0, 3);
        List<String> lines = r.rows().stream().map(PerfReport::line).toList();
        assertEquals("           4             1     float     sum      -1    12.34    0.00    0.00       0    12.00    0.00    0.00       0",
                lines.get(0));
        assertEquals("     1048576        262144     float     sum      -1   900.00    1.17    1.50       3   800.00    1.31    2.50       0",
                lines.get(1));
        assertTrue(PerfReport.line(report(PerfReport.NOT_CHECKED, 0).rows().get(0)).endsWith("0.00    N/A"));
        assertEquals("# reactive-collectives world=2 op=all_reduce", r.title());
    }

    @Test
    void footerCountsFailedResultsAsNcclTestsAndAveragesBothPlaces() {
        assertEquals(List.of("# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 1.00016 ", "#",
                "# Collective test concluded: all_reduce_perf", "#", ""), report(0, 0).footer("all_reduce_perf", 2));
        PerfReport bad = report(0, 3);
        // one result (size and place) had wrong elements, counted by each of the 2 processes, as nccl-tests' MPI build sums
        assertEquals("# Out of bounds values : 2 FAILED", bad.footer("all_reduce_perf", 2).get(0));
        assertFalse(bad.passed());
        PerfReport unchecked = report(PerfReport.NOT_CHECKED, PerfReport.NOT_CHECKED);
        assertEquals("# Out of bounds values : 0 OK", unchecked.footer("all_reduce_perf", 2).get(0));
        assertTrue(unchecked.passed());
    }

    @Test
    void csvAndJson() {
        PerfReport r = report(0, PerfReport.NOT_CHECKED);
        assertEquals("op,bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong,ip_time_us,ip_algbw_gbps,ip_busbw_gbps,ip_wrong\n"
                + "all_reduce,4,1,float,sum,-1,12.340,0.000324,0.000324,0,12.000,0.000333,0.000333,0\n"
                + "all_reduce,1048576,262144,float,sum,-1,900.000,1.165000,1.500000,,800.000,1.310000,2.500000,0\n", r.csv());
        assertEquals("{\"run\": {\"world\": \"2\", \"op\": \"all_reduce\"}, \"rows\": ["
                + "{\"op\": \"all_reduce\", \"bytes\": 4, \"count\": 1, \"type\": \"float\", \"redop\": \"sum\", \"root\": -1,"
                + " \"out_of_place\": {\"time_us\": 12.340, \"algbw_gbps\": 0.000324, \"busbw_gbps\": 0.000324, \"wrong\": 0},"
                + " \"in_place\": {\"time_us\": 12.000, \"algbw_gbps\": 0.000333, \"busbw_gbps\": 0.000333, \"wrong\": 0}}, "
                + "{\"op\": \"all_reduce\", \"bytes\": 1048576, \"count\": 262144, \"type\": \"float\", \"redop\": \"sum\", \"root\": -1,"
                + " \"out_of_place\": {\"time_us\": 900.000, \"algbw_gbps\": 1.165000, \"busbw_gbps\": 1.500000, \"wrong\": null},"
                + " \"in_place\": {\"time_us\": 800.000, \"algbw_gbps\": 1.310000, \"busbw_gbps\": 2.500000, \"wrong\": 0}}], "
                + "\"avg_busbw_gbps\": 1.000164, \"errors\": 0}\n", r.json(2));
        assertEquals("\"a\\\"b\\\\c\\n\"", PerfReport.quote("a\"b\\c\n"));
    }
}
