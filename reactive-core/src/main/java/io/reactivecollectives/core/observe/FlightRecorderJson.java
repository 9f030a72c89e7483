package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The JSON mapper that reads flight-recorder dumps back, in a holder class of its own so that Jackson's
 * data binding (some 350 classes) is loaded when the first dump is read, not when the first group
 * starts. Dumps are written by {@link FlightRecorderJsonWriter}, which needs only the streaming API.
 */
final class FlightRecorderJson {

    /** Reads dumps. */
    static final ObjectMapper MAPPER = new ObjectMapper();

    private FlightRecorderJson() {
    }

    /** Reads a dump file (blocking). */
    static FlightRecorderDump read(Path file) throws IOException {
        return MAPPER.readValue(file.toFile(), FlightRecorderDump.class);
    }

    /** Parses the JSON text of a dump. */
    static FlightRecorderDump fromJson(String json) throws IOException {
        return MAPPER.readValue(json, FlightRecorderDump.class);
    }
}
