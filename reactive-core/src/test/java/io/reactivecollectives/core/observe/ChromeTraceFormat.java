package io.reactivecollectives.core.observe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a trace against the Trace Event Format (the JSON object form that Perfetto and
 * {@code chrome://tracing} open), for the events {@link ChromeTrace} writes: the top level is an
 * object with a {@code traceEvents} array; every event has a name, a phase, a pid and a tid, and a
 * numeric ts unless it is metadata; complete events ({@code X}) have a duration of at least zero,
 * and those of one pid/tid nest (none starts inside another and ends after it); metadata
 * ({@code M}) is a process or thread name or sort index, with its argument; instants ({@code i},
 * {@code I}) have a scope g, p or t when they say; each flow id (with its cat and name) has
 * exactly one {@code s} and one {@code f}, the {@code f} binding to its enclosing slice
 * ({@code "bp":"e"}), steps {@code t} between them in time, and every point lies within a complete
 * event on its pid/tid; every pid with events has a process name. Other phases are reported as
 * unsupported. Used by the tests of every module that writes traces (core's test jar).
 */
public final class ChromeTraceFormat {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> METADATA = Set.of("process_name", "thread_name", "process_sort_index",
            "thread_sort_index");

    private ChromeTraceFormat() {
    }

    /**
     * Parses and checks a trace; fails listing every problem.
     *
     * @param json the trace
     * @return its parsed tree, for further assertions
     * @throws AssertionError naming the problems
     */
    public static JsonNode check(String json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + e.getMessage(), e);
        }
        List<String> problems = problems(root);
        if (!problems.isEmpty()) {
            throw new AssertionError("not a valid trace (" + problems.size() + " problem(s)):\n  "
                    + String.join("\n  ", problems.subList(0, Math.min(problems.size(), 30))));
        }
        return root;
    }

    /** A complete event: [ts, ts + dur] on one pid/tid. */
    private record Span(double start, double end, int index) {
    }

    /** A flow point. */
    private record FlowPoint(String ph, String key, double ts, String thread, int index, String bp) {
    }

    /**
     * Every way the trace breaks the format, in order; empty when there is none.
     *
     * @param root the parsed trace
     * @return the problems
     */
    public static List<String> problems(JsonNode root) {
        List<String> out = new ArrayList<>();
        if (root == null || !root.isObject()) {
            out.add("the top level is not an object");
            return out;
        }
        JsonNode events = root.get("traceEvents");
        if (events == null || !events.isArray()) {
            out.add("no traceEvents array");
            return out;
        }
        JsonNode unit = root.get("displayTimeUnit");
        if (unit != null && !("ms".equals(unit.asText()) || "ns".equals(unit.asText()))) {
            out.add("displayTimeUnit is neither ms nor ns: " + unit);
        }
        Map<String, List<Span>> spans = new LinkedHashMap<>();
        Map<String, List<FlowPoint>> flows = new LinkedHashMap<>();
        Map<Integer, Boolean> named = new LinkedHashMap<>();
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            String at = "event " + i;
            if (!e.isObject()) {
                out.add(at + ": not an object");
                continue;
            }
            if (!e.path("name").isTextual() || !e.path("ph").isTextual()) {
                out.add(at + ": no name or no ph");
                continue;
            }
            if (!e.path("pid").isIntegralNumber() || !e.path("tid").isIntegralNumber()) {
                out.add(at + " (" + e.get("name").asText() + "): no integer pid or tid");
                continue;
            }
            String ph = e.get("ph").asText();
            int pid = e.get("pid").asInt();
            String thread = pid + "/" + e.get("tid").asInt();
            at += " (" + ph + " " + e.get("name").asText() + ")";
            if (ph.equals("M")) {
                metadata(e, at, out, named);
                continue;
            }
            named.putIfAbsent(pid, false);
            if (!e.path("ts").isNumber()) {
                out.add(at + ": no numeric ts");
                continue;
            }
            double ts = e.get("ts").asDouble();
            switch (ph) {
                case "X" -> {
                    if (!e.path("dur").isNumber() || e.get("dur").asDouble() < 0) {
                        out.add(at + ": no dur, or a negative one");
                    } else {
                        spans.computeIfAbsent(thread, k -> new ArrayList<>())
                                .add(new Span(ts, ts + e.get("dur").asDouble(), i));
                    }
                }
                case "i", "I" -> {
                    String s = e.path("s").asText("t");
                    if (!Set.of("g", "p", "t").contains(s)) {
                        out.add(at + ": instant scope " + s + " is not g, p or t");
                    }
                }
                case "s", "t", "f" -> {
                    if (!e.has("id") || !(e.get("id").isIntegralNumber() || e.get("id").isTextual())) {
                        out.add(at + ": a flow event without an id");
                    } else {
                        String key = e.get("id").asText() + " " + e.path("cat").asText() + " " + e.get("name").asText();
                        flows.computeIfAbsent(e.get("id").asText(), k -> new ArrayList<>()).add(new FlowPoint(ph, key, ts,
                                thread, i, e.path("bp").asText(null)));
                    }
                }
                default -> out.add(at + ": unsupported phase " + ph);
            }
        }
        named.forEach((pid, hasName) -> {
            if (!hasName) {
                out.add("pid " + pid + " has events but no process_name");
            }
        });
        spans.forEach((thread, list) -> nesting(thread, list, out));
        flows.forEach((id, points) -> flow(id, points, spans, out));
        return out;
    }

    private static void metadata(JsonNode e, String at, List<String> out, Map<Integer, Boolean> named) {
        String name = e.get("name").asText();
        if (!METADATA.contains(name)) {
            out.add(at + ": metadata other than " + METADATA);
            return;
        }
        JsonNode args = e.path("args");
        boolean ok = name.endsWith("_name") ? args.path("name").isTextual() : args.path("sort_index").isIntegralNumber();
        if (!ok) {
            out.add(at + ": its args lack " + (name.endsWith("_name") ? "a textual name" : "an integer sort_index"));
        }
        if (name.equals("process_name") && ok) {
            named.put(e.get("pid").asInt(), true);
        }
    }

    /** Slices of one thread, by start (the longer first on a tie), must each end within the one they start in. */
    private static void nesting(String thread, List<Span> list, List<String> out) {
        List<Span> sorted = new ArrayList<>(list);
        sorted.sort(Comparator.comparingDouble(Span::start).thenComparing(Comparator.comparingDouble(Span::end).reversed()));
        Deque<Span> open = new ArrayDeque<>();
        for (Span s : sorted) {
            while (!open.isEmpty() && open.peek().end() <= s.start()) {
                open.pop();
            }
            if (!open.isEmpty() && s.end() > open.peek().end()) {
                out.add("pid/tid " + thread + ": event " + s.index() + " [" + s.start() + ", " + s.end()
                        + "] starts inside event " + open.peek().index() + " [" + open.peek().start() + ", "
                        + open.peek().end() + "] and ends after it");
            }
            open.push(s);
        }
    }

    private static void flow(String id, List<FlowPoint> points, Map<String, List<Span>> spans, List<String> out) {
        String at = "flow " + id;
        List<FlowPoint> starts = points.stream().filter(p -> p.ph().equals("s")).toList();
        List<FlowPoint> ends = points.stream().filter(p -> p.ph().equals("f")).toList();
        if (starts.size() != 1 || ends.size() != 1) {
            out.add(at + ": " + starts.size() + " start(s) and " + ends.size() + " end(s), not one of each");
            return;
        }
        if (points.stream().map(FlowPoint::key).distinct().count() != 1) {
            out.add(at + ": its points differ in cat or name");
        }
        FlowPoint s = starts.get(0);
        FlowPoint f = ends.get(0);
        if (!"e".equals(f.bp())) {
            out.add(at + ": its end does not bind to the enclosing slice (\"bp\":\"e\")");
        }
        for (FlowPoint p : points) {
            if (p.ts() < s.ts() || p.ts() > f.ts()) {
                out.add(at + ": event " + p.index() + " (" + p.ph() + ") at " + p.ts() + " is not between its start at "
                        + s.ts() + " and its end at " + f.ts());
            }
            boolean enclosed = spans.getOrDefault(p.thread(), List.of()).stream()
                    .anyMatch(x -> x.start() <= p.ts() && p.ts() <= x.end());
            if (!enclosed) {
                out.add(at + ": event " + p.index() + " (" + p.ph() + ") at " + p.ts() + " lies in no slice of pid/tid "
                        + p.thread());
            }
        }
        // the steps' order in the file does not matter: viewers order a flow's points by their timestamps
    }
}
