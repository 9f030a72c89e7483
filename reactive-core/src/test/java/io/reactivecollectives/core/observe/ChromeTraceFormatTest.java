package io.reactivecollectives.core.observe;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The validator itself: it accepts a well-formed trace and catches each kind of break. */
class ChromeTraceFormatTest {

    private static final String NAMES = """
            {"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"rank 0"}},
            {"name":"process_name","ph":"M","pid":2,"tid":2,"args":{"name":"rank 1"}},
            {"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"collectives"}},
            {"name":"process_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":1}},
            """;

    private static String trace(String events) {
        return "{\"traceEvents\":[" + NAMES + events + "],\"displayTimeUnit\":\"ms\"}";
    }

    /** Two ranks, a collective each with a nested child, linked by a flow s -> t -> f. */
    private static final String GOOD = """
            {"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
            {"name":"child","ph":"X","pid":1,"tid":1,"ts":2,"dur":3},
            {"name":"a","ph":"X","pid":2,"tid":2,"ts":4,"dur":10},
            {"name":"b","ph":"X","pid":2,"tid":2,"ts":14,"dur":5},
            {"name":"dump","ph":"i","s":"p","pid":2,"tid":2,"ts":20},
            {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":0.5},
            {"name":"x","cat":"c","ph":"t","id":1,"pid":2,"tid":2,"ts":4.5},
            {"name":"x","cat":"c","ph":"f","bp":"e","id":1,"pid":2,"tid":2,"ts":14.5}
            """;

    private static void broken(String json, String expected) {
        AssertionError e = assertThrows(AssertionError.class, () -> ChromeTraceFormat.check(json));
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in:\n" + e.getMessage());
    }

    @Test
    void acceptsAWellFormedTrace() {
        assertDoesNotThrow(() -> ChromeTraceFormat.check(trace(GOOD)));
    }

    @Test
    void catchesABrokenTopLevel() {
        broken("[]", "the top level is not an object");
        broken("{\"events\":[]}", "no traceEvents array");
        broken("{\"traceEvents\":[", "not JSON");
        broken("{\"traceEvents\":[],\"displayTimeUnit\":\"s\"}", "displayTimeUnit is neither ms nor ns");
    }

    @Test
    void catchesEventsWithoutTheirFields() {
        broken(trace("{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}"), "no name or no ph");
        broken(trace("{\"name\":\"a\",\"ph\":\"X\",\"tid\":1,\"ts\":0,\"dur\":1}"), "no integer pid or tid");
        broken(trace("{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"dur\":1}"), "no numeric ts");
        broken(trace("{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":-1}"), "no dur, or a negative one");
        broken(trace("{\"name\":\"a\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":0}"), "unsupported phase B");
        broken(trace("{\"name\":\"a\",\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":0,\"dur\":1}"), "pid 7 has events but no process_name");
        broken(trace("{\"name\":\"a\",\"ph\":\"i\",\"s\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0}"), "instant scope x");
    }

    @Test
    void catchesBadMetadata() {
        broken(trace("{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"labels\":\"x\"}}"),
                "metadata other than");
        broken(trace("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{}}"), "a textual name");
        broken(trace("{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"sort_index\":\"1\"}}"),
                "an integer sort_index");
    }

    @Test
    void catchesSlicesThatOverlapWithoutNesting() {
        broken(trace("""
                {"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
                {"name":"b","ph":"X","pid":1,"tid":1,"ts":5,"dur":10}
                """), "starts inside event");
        // the same on two threads, or touching end to start, is fine
        assertDoesNotThrow(() -> ChromeTraceFormat.check(trace("""
                {"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
                {"name":"b","ph":"X","pid":1,"tid":2,"ts":5,"dur":10},
                {"name":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":10}
                """)));
    }

    @Test
    void catchesBrokenFlows() {
        String slices = """
                {"name":"a","ph":"X","pid":1,"tid":1,"ts":0,"dur":10},
                {"name":"a","ph":"X","pid":2,"tid":2,"ts":4,"dur":10},
                """;
        broken(trace(slices + "{\"name\":\"x\",\"cat\":\"c\",\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1}"),
                "1 start(s) and 0 end(s)");
        broken(trace(slices + """
                {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":1},
                {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":2},
                {"name":"x","cat":"c","ph":"f","bp":"e","id":1,"pid":2,"tid":2,"ts":5}
                """), "2 start(s) and 1 end(s)");
        broken(trace(slices + """
                {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":1},
                {"name":"x","cat":"c","ph":"f","id":1,"pid":2,"tid":2,"ts":5}
                """), "does not bind to the enclosing slice");
        broken(trace(slices + """
                {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":1},
                {"name":"x","cat":"c","ph":"f","bp":"e","id":1,"pid":2,"tid":2,"ts":20}
                """), "lies in no slice of pid/tid 2/2");
        broken(trace(slices + """
                {"name":"x","cat":"c","ph":"s","id":1,"pid":2,"tid":2,"ts":6},
                {"name":"x","cat":"c","ph":"f","bp":"e","id":1,"pid":1,"tid":1,"ts":5}
                """), "is not between its start");
        broken(trace(slices + """
                {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":1},
                {"name":"y","cat":"c","ph":"f","bp":"e","id":1,"pid":2,"tid":2,"ts":5}
                """), "differ in cat or name");
        // steps written out of time order are fine (ranks are written one after another): viewers sort by ts
        assertNotNull(ChromeTraceFormat.check(trace(slices + """
                {"name":"x","cat":"c","ph":"s","id":1,"pid":1,"tid":1,"ts":1},
                {"name":"x","cat":"c","ph":"t","id":1,"pid":2,"tid":2,"ts":8},
                {"name":"x","cat":"c","ph":"t","id":1,"pid":2,"tid":2,"ts":6},
                {"name":"x","cat":"c","ph":"f","bp":"e","id":1,"pid":2,"tid":2,"ts":9}
                """)));
    }
}
