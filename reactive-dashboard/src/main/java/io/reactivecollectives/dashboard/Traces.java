package io.reactivecollectives.dashboard;

import io.reactivecollectives.core.observe.ChromeTrace;
import io.reactivecollectives.core.observe.FlightRecorderDump;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** The flight recorders of one or all ranks as a Chrome trace (Perfetto, chrome://tracing). */
final class Traces {

    private Traces() {
    }

    static byte[] chromeTrace(List<FlightRecorderDump> dumps) {
        return ChromeTrace.toJson(dumps).getBytes(StandardCharsets.UTF_8);
    }
}
