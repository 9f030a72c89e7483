package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Writes a {@link FlightRecorderDump} as indented JSON with Jackson's streaming generator: the same
 * text as the data-binding mapper writes (record components in declaration order, null fields left
 * out), which {@link FlightRecorderJson} reads back. The streaming API is used because a dump is
 * written when a collective fails, and the error reaches its subscriber only once the dump is on disk:
 * the mapper's first use (loading data binding and introspecting the records) costs about six times
 * the generator's, and on a busy machine that delay would be added to every first failure report.
 */
final class FlightRecorderJsonWriter {

    private static final JsonFactory FACTORY = new JsonFactory();

    private FlightRecorderJsonWriter() {
    }

    /** The dump as UTF-8 JSON bytes. */
    static byte[] toBytes(FlightRecorderDump dump) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096 + 512 * dump.entries().size());
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            write(g, dump);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write flight recorder dump as JSON", e);
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, FlightRecorderDump d) throws IOException {
        g.writeStartObject();
        g.writeNumberField("version", d.version());
        string(g, "groupId", d.groupId());
        g.writeNumberField("rank", d.rank());
        g.writeNumberField("worldSize", d.worldSize());
        g.writeNumberField("dumpedAtUs", d.dumpedAtUs());
        string(g, "reason", d.reason());
        g.writeNumberField("capacity", d.capacity());
        g.writeNumberField("recorded", d.recorded());
        g.writeArrayFieldStart("entries");
        for (FlightRecorderDump.Entry e : d.entries()) {
            write(g, e);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void write(JsonGenerator g, FlightRecorderDump.Entry e) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", e.id());
        g.writeNumberField("seq", e.seq());
        string(g, "op", e.op());
        string(g, "dtype", e.dtype());
        shapes(g, "inputShapes", e.inputShapes());
        shapes(g, "outputShapes", e.outputShapes());
        g.writeNumberField("inputBytes", e.inputBytes());
        g.writeNumberField("outputBytes", e.outputBytes());
        string(g, "algorithm", e.algorithm());
        string(g, "state", e.state());
        number(g, "scheduledAtUs", e.scheduledAtUs());
        number(g, "startedAtUs", e.startedAtUs());
        number(g, "completedAtUs", e.completedAtUs());
        number(g, "failedAtUs", e.failedAtUs());
        if (e.waitingFor() != null) {
            g.writeNumberField("waitingFor", e.waitingFor().intValue());
        }
        string(g, "waitingWhat", e.waitingWhat());
        string(g, "error", e.error());
        g.writeEndObject();
    }

    private static void string(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }

    private static void number(JsonGenerator g, String name, Long value) throws IOException {
        if (value != null) {
            g.writeNumberField(name, value.longValue());
        }
    }

    private static void shapes(JsonGenerator g, String name, List<List<Long>> shapes) throws IOException {
        g.writeArrayFieldStart(name);
        for (List<Long> shape : shapes) {
            g.writeStartArray();
            for (Long dim : shape) {
                g.writeNumber(dim.longValue());
            }
            g.writeEndArray();
        }
        g.writeEndArray();
    }
}
