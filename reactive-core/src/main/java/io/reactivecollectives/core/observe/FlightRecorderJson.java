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
        return checked(MAPPER.readValue(file.toFile(), FlightRecorderDump.class), "the file");
    }

    /** Parses the JSON text of a dump. */
    static FlightRecorderDump fromJson(String json) throws IOException {
        return checked(MAPPER.readValue(json, FlightRecorderDump.class), "the text");
    }

    /** {@code dump}, unless it lacks what every dump has (JSON of another kind, or {@code {}}). */
    private static FlightRecorderDump checked(FlightRecorderDump dump, String what) throws IOException {
        if (dump == null || dump.version() < 1 || dump.groupId() == null || dump.worldSize() < 1 || dump.rank() < 0
                || dump.rank() >= dump.worldSize()) {
            throw new IOException("not a flight-recorder dump (" + what + " lacks the version, group, rank or world size"
                    + " every dump has)");
        }
        return dump;
    }
}
