package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The JSON mapper of flight-recorder dumps, in a holder class of its own so that Jackson (some 350
 * classes) is loaded when the first dump is written or read, not when the first group starts.
 */
final class FlightRecorderJson {

    /** Writes dumps indented, reads them back. */
    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private FlightRecorderJson() {
    }
}
