package io.reactivecollectives.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * nccl-tests' output read the way users' scripts read it (as {@code perf/scripts/parse_nccl_tests.py}
 * does): lines starting with {@code #} skipped, the others split on whitespace, the size in column 0,
 * the out-of-place busbw in column 7, the in-place busbw in column 11; the average from the
 * {@code # Avg bus bandwidth} line.
 */
final class NcclTestsParser {

    /** One row: size in bytes and both busbw values. */
    record Row(long size, double busbwOutOfPlace, double busbwInPlace) {
    }

    /** What a script gets: the rows, the numbers of fields rows have, and the average (null without the footer). */
    record Parsed(List<Row> rows, Set<Integer> columns, Double avgBusbw) {
    }

    private NcclTestsParser() {
    }

    static Parsed parse(List<String> lines) {
        List<Row> rows = new ArrayList<>();
        Set<Integer> columns = new TreeSet<>();
        Double avg = null;
        for (String line : lines) {
            if (line.startsWith("# Avg bus bandwidth")) {
                avg = Double.parseDouble(line.split(":", 2)[1].trim().split("\\s+")[0]);
            } else if (!line.startsWith("#") && !line.isBlank()) {
                String[] c = line.trim().split("\\s+");
                columns.add(c.length);
                rows.add(new Row(Long.parseLong(c[0]), Double.parseDouble(c[7]), Double.parseDouble(c[11])));
            }
        }
        return new Parsed(rows, columns, avg);
    }
}
