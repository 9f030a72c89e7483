package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.util.List;

/**
 * A {@link ChromeTrace}'s complete event ({@code "ph":"X"}) for one recorded entry, its fields as
 * arguments, and a colour hint for {@code chrome://tracing} ({@code cname}; Perfetto picks its own):
 * failed ones {@code terrible}, unfinished ones {@code bad}.
 */
final class ChromeTraceSlices {

    private ChromeTraceSlices() {
    }

    /** {@code allReduce seq 17}, followed by {@code (FAILED)} or {@code (unfinished)} where so. */
    static String name(ChromeTraceTracks.Slice s) {
        FlightRecorderDump.Entry e = s.entry();
        String name = e.op() + " seq " + e.seq();
        return e.failed() ? name + " (FAILED)" : s.unfinished() ? name + " (unfinished)" : name;
    }

    /** Writes the slice {@code s} of track {@code t}, its times relative to {@code base}. */
    static void write(JsonGenerator g, ChromeTraceTracks.Track t, ChromeTraceTracks.Slice s, long base)
            throws IOException {
        FlightRecorderDump.Entry e = s.entry();
        g.writeStartObject();
        g.writeStringField("name", name(s));
        g.writeStringField("cat", ChromeTrace.CATEGORY);
        g.writeStringField("ph", "X");
        g.writeNumberField("pid", t.pid());
        g.writeNumberField("tid", s.tid());
        g.writeNumberField("ts", s.startUs() - base);
        g.writeNumberField("dur", s.endUs() - s.startUs());
        if (e.failed()) {
            g.writeStringField("cname", "terrible");
        } else if (s.unfinished()) {
            g.writeStringField("cname", "bad");
        }
        g.writeObjectFieldStart("args");
        g.writeStringField("group", t.dump().groupId());
        g.writeNumberField("rank", t.dump().rank());
        g.writeNumberField("seq", e.seq());
        g.writeStringField("op", e.op());
        string(g, "dtype", e.dtype());
        g.writeStringField("inputShapes", shapes(e.inputShapes()));
        g.writeStringField("outputShapes", shapes(e.outputShapes()));
        g.writeNumberField("inputBytes", e.inputBytes());
        g.writeNumberField("outputBytes", e.outputBytes());
        string(g, "algorithm", e.algorithm());
        g.writeStringField("state", e.state());
        if (s.unfinished()) {
            g.writeStringField("end", "the dump: it had not finished when rank " + t.dump().rank() + " dumped");
        }
        if (e.scheduledAtUs() != null && e.startedAtUs() != null) {
            g.writeNumberField("queuedUs", e.startedAtUs() - e.scheduledAtUs());
        }
        if (e.startedAtUs() == null) {
            g.writeStringField("start", "scheduled: it never started");
        }
        if (e.waitingFor() != null) {
            g.writeNumberField("waitingFor", e.waitingFor().intValue());
        }
        string(g, "waitingWhat", e.waitingWhat());
        string(g, "error", e.error());
        g.writeNumberField("id", e.id());
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void string(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }

    /** {@code [[16, 4], [8]]}. */
    private static String shapes(List<List<Long>> shapes) {
        return shapes.toString();
    }
}
