package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The flight-recorder dumps of all ranks as one trace in the Chrome Trace Event Format (its JSON
 * object form), which Perfetto ({@code ui.perfetto.dev}, {@code trace_processor}) and
 * {@code chrome://tracing} open as they are:
 * <ul>
 *   <li>each rank is a process, named {@code rank 3} ({@code train rank 3} when the dumps are of
 *       several groups), with process id {@code rank + 1} (groups in name order, each after the
 *       world sizes of those before it: Perfetto treats pid 0 as the kernel's idle process);</li>
 *   <li>each recorded entry is a complete event ({@code "ph":"X"}, category {@code collective}) from
 *       its start (else its scheduling) to its completion or failure, named {@code allReduce seq 17},
 *       with the entry's fields as arguments; one that had not finished when its rank dumped ends at
 *       the dump and is named {@code ... (unfinished)}, a failed one {@code ... (FAILED)}. Slices last
 *       at least a microsecond. A rank's slices lie on its thread {@code collectives}; operations that
 *       overlap in time go to further threads ({@code collectives 2}, ...), since slices of one thread
 *       must nest;</li>
 *   <li>each dump is an instant event on its rank, named after its reason;</li>
 *   <li>each collective (group and sequence number) recorded by two or more ranks is a flow (events
 *       {@code s}, {@code t}, {@code f} with one id) through the ranks' slices in the order they
 *       started it, half a microsecond after each start: the arrow ends at the rank that came
 *       last.</li>
 * </ul>
 * Times are microseconds from the earliest time in the dumps, whose epoch value is in
 * {@code otherData.epochBaseUs}. Where a rank dumped more than once, its latest dump is used.
 *
 * <p>Written with Jackson's streaming generator, one event a line: besides the dumps, it holds one
 * small record per entry, never the events. Pure functions; the caller owns the streams.
 */
public final class ChromeTrace {

    private static final JsonFactory FACTORY = new JsonFactory()
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    /** The category of the slices and flows. */
    public static final String CATEGORY = "collective";

    private ChromeTrace() {
    }

    /**
     * What a trace holds.
     *
     * @param ranks       tracks: ranks of each group with a dump
     * @param slices      complete events: the recorded entries with a time
     * @param collectives distinct collectives (group and sequence number; not point-to-point)
     * @param flows       flows: collectives recorded by two or more ranks
     */
    public record Counts(int ranks, int slices, int collectives, int flows) {
    }

    /**
     * Writes the trace of the dumps as UTF-8 JSON; leaves the stream open (flushed).
     *
     * @param dumps the dumps of all ranks, of one or more groups
     * @param out   where the trace goes
     * @return what the trace holds
     * @throws IOException when the stream fails
     */
    public static Counts write(Collection<FlightRecorderDump> dumps, OutputStream out) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            return write(dumps, g);
        }
    }

    /**
     * Writes the trace of the dumps as JSON text; leaves the writer open (flushed).
     *
     * @param dumps the dumps of all ranks, of one or more groups
     * @param out   where the trace goes
     * @return what the trace holds
     * @throws IOException when the writer fails
     */
    public static Counts write(Collection<FlightRecorderDump> dumps, Writer out) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            return write(dumps, g);
        }
    }

    /**
     * The trace of the dumps as JSON text.
     *
     * @param dumps the dumps of all ranks, of one or more groups
     * @return the trace
     */
    public static String toJson(Collection<FlightRecorderDump> dumps) {
        StringWriter w = new StringWriter(1024 + 512 * dumps.stream().mapToInt(d -> d.entries().size()).sum());
        try {
            write(dumps, w);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a trace to a string", e);
        }
        return w.toString();
    }

    private static Counts write(Collection<FlightRecorderDump> dumps, JsonGenerator g) throws IOException {
        ChromeTraceTracks tracks = ChromeTraceTracks.of(dumps);
        ChromeTraceFlows flows = ChromeTraceFlows.of(tracks);
        int slices = tracks.tracks().stream().mapToInt(t -> t.slices().size()).sum();
        Counts counts = new Counts(tracks.tracks().size(), slices, flows.collectives(), flows.flows());
        long base = tracks.baseUs();
        g.setPrettyPrinter(new EventPerLine());
        g.writeStartObject();
        g.writeArrayFieldStart("traceEvents");
        for (ChromeTraceTracks.Track t : tracks.tracks()) {
            metadata(g, "process_name", t.pid(), t.pid(), "name", tracks.name(t));
            metadata(g, "process_sort_index", t.pid(), t.pid(), "sort_index", t.pid());
            for (int lane = 0; lane < t.tids().size(); lane++) {
                int tid = t.tids().get(lane);
                metadata(g, "thread_name", t.pid(), tid, "name", lane == 0 ? "collectives" : "collectives " + (lane + 1));
                metadata(g, "thread_sort_index", t.pid(), tid, "sort_index", lane);
            }
            dumped(g, t, base);
            for (ChromeTraceTracks.Slice s : t.slices()) {
                ChromeTraceSlices.write(g, t, s, base);
                ChromeTraceFlows.Point p = flows.at(s);
                if (p != null) {
                    flow(g, p, t.pid(), s, base);
                }
            }
        }
        g.writeEndArray();
        g.writeStringField("displayTimeUnit", "ms");
        g.writeObjectFieldStart("otherData");
        g.writeStringField("source", "reactive-collectives flight recorder");
        g.writeNumberField("epochBaseUs", base);
        g.writeStringField("epochBase", Instant.EPOCH.plus(base, ChronoUnit.MICROS).toString());
        Set<String> groups = new LinkedHashSet<>();
        tracks.tracks().forEach(t -> groups.add(t.dump().groupId()));
        g.writeStringField("groups", String.join(", ", groups));
        g.writeNumberField("ranks", counts.ranks());
        g.writeNumberField("collectives", counts.collectives());
        g.writeNumberField("flows", counts.flows());
        g.writeEndObject();
        g.writeEndObject();
        g.flush();
        return counts;
    }

    private static void metadata(JsonGenerator g, String name, int pid, int tid, String arg, Object value)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeNumberField("ts", 0);
        g.writeObjectFieldStart("args");
        if (value instanceof Integer i) {
            g.writeNumberField(arg, i);
        } else {
            g.writeStringField(arg, String.valueOf(value));
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The dump as an instant on its rank's process: when it was taken and why. */
    private static void dumped(JsonGenerator g, ChromeTraceTracks.Track t, long base) throws IOException {
        FlightRecorderDump d = t.dump();
        g.writeStartObject();
        g.writeStringField("name", "dump: " + d.reason());
        g.writeStringField("cat", "flight-recorder");
        g.writeStringField("ph", "i");
        g.writeStringField("s", "p");
        g.writeNumberField("pid", t.pid());
        g.writeNumberField("tid", t.pid());
        g.writeNumberField("ts", d.dumpedAtUs() - base);
        g.writeObjectFieldStart("args");
        g.writeStringField("group", d.groupId());
        g.writeNumberField("rank", d.rank());
        g.writeNumberField("worldSize", d.worldSize());
        g.writeStringField("reason", String.valueOf(d.reason()));
        g.writeNumberField("recorded", d.recorded());
        g.writeNumberField("retained", d.entries().size());
        g.writeNumberField("capacity", d.capacity());
        g.writeNumberField("dumpedAtUs", d.dumpedAtUs());
        g.writeEndObject();
        g.writeEndObject();
    }

    /** A flow point half a microsecond into its slice, so that it binds to it (every slice lasts at least 1 us). */
    private static void flow(JsonGenerator g, ChromeTraceFlows.Point p, int pid, ChromeTraceTracks.Slice s, long base)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", p.name());
        g.writeStringField("cat", CATEGORY);
        g.writeStringField("ph", p.phase().letter);
        g.writeNumberField("id", p.id());
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", s.tid());
        g.writeNumberField("ts", (s.startUs() - base) + 0.5);
        if (p.phase() == ChromeTraceFlows.Phase.END) {
            g.writeStringField("bp", "e");
        }
        g.writeEndObject();
    }

    /** Compact JSON with each element of {@code traceEvents} on a line of its own. */
    private static final class EventPerLine extends MinimalPrettyPrinter {

        private static boolean events(JsonGenerator g) {
            JsonStreamContext array = g.getOutputContext();
            JsonStreamContext top = array.getParent();
            return array.inArray() && top != null && top.getParent() != null && top.getParent().inRoot();
        }

        @Override
        public void beforeArrayValues(JsonGenerator g) throws IOException {
            if (events(g)) {
                g.writeRaw('\n');
            }
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(events(g) ? ",\n" : ",");
        }

        @Override
        public void writeEndArray(JsonGenerator g, int nrOfValues) throws IOException {
            g.writeRaw(events(g) && nrOfValues > 0 ? "\n]" : "]");
        }
    }
}
