package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The JSON mapper of flight-recorder dumps and the reading and writing of their text, in a holder class of its own so that Jackson (some 350
 * classes) is loaded when the first dump is written or read, not when the first group starts.
 */
final class FlightRecorderJson {

    /** Writes dumps indented, reads them back. */
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private FlightRecorderJson() {
    }

    /** Reads a dump file (blocking). */
    static FlightRecorderDump read(Path file) throws IOException {
        return MAPPER.readValue(file.toFile(), FlightRecorderDump.class);
    }

    /** The JSON text of {@code dump}; a mapping failure (a bug) is an {@link IllegalStateException}. */
    static String toJson(FlightRecorderDump dump) {
        try {
            return MAPPER.writeValueAsString(dump);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write flight recorder dump as JSON", e);
        }
    }

    /** Parses the JSON text of a dump. */
    static FlightRecorderDump fromJson(String json) throws IOException {
        return MAPPER.readValue(json, FlightRecorderDump.class);
    }
}
