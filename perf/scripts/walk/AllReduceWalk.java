import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import reactor.core.publisher.Flux;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The walk of one all-reduce, measured: JFR method tracing (JDK 25, JEP 520) of every class of the
 * project while a 2-rank LocalCluster runs one all-reduce (after warm-up ones), then the files in the
 * order first entered, and the files entered again on one call stack after leaving them for another
 * of the project's files ("visited twice on the way down").
 *
 * <p>Run by perf/scripts/all_reduce_walk.sh: java AllReduceWalk.java BYTES CLASSLIST OUT.jfr
 */
public class AllReduceWalk {

    private static Set<String> CORE = Set.of();

    public static void main(String[] args) throws Exception {
        if (args.length > 3) {
            CORE = Set.copyOf(Files.readAllLines(Path.of(args[3])));
        }
        long bytes = Long.parseLong(args[0]);
        List<String> classes = Files.readAllLines(Path.of(args[1]));
        Path jfr = Path.of(args[2]);
        Duration wait = Duration.ofSeconds(120);
        LocalCluster cluster = LocalCluster.start(2, GroupOptions.defaults()).block(wait);
        String transport = cluster.group(0).transportTo(1);
        int n = (int) Math.max(1, bytes / 4);
        Tensor[] tensors = {Tensor.fromFloats(new float[n], n), Tensor.fromFloats(new float[n], n)};
        try {
            for (int i = 0; i < 3; i++) {
                allReduce(cluster, tensors, wait);
            }
            try (Recording r = new Recording()) {
                r.enable("jdk.MethodTrace").with("filter", String.join(";", classes)).with("stackTrace", "true")
                        .withStackTrace();
                r.setToDisk(true);
                r.start();
                Thread.sleep(500);               // instrumentation lands before the traced call
                allReduce(cluster, tensors, wait);
                r.stop();
                r.dump(jfr);
            }
        } finally {
            cluster.close();
            tensors[0].release();
            tensors[1].release();
        }
        report(jfr);
        System.out.println("# rank 0 to rank 1: " + transport);
    }

    private static void allReduce(LocalCluster cluster, Tensor[] tensors, Duration wait) {
        Flux.range(0, 2).flatMap(rank -> cluster.group(rank).allReduce(tensors[rank], ReduceOp.SUM), 2)
                .blockLast(wait);
    }

    /** Timers of the group that run whether or not a collective does (heartbeats, wait reports). */
    private static final Set<String> BACKGROUND = Set.of("Liveness.java", "WaitReports.java",
            "CollectiveWaits.java", "CollectiveWatchdog.java", "AllReduceWalk.java");

    private static String file(RecordedFrame f) {
        String c = f.getMethod().getType().getName();
        if (c.equals("AllReduceWalk") || c.startsWith("AllReduceWalk$")) {
            return "AllReduceWalk.java";
        }
        if (!c.startsWith("io.reactivecollectives.")) {
            return null;
        }
        int inner = c.indexOf('$');
        String top = inner < 0 ? c : c.substring(0, inner);
        return top.substring(top.lastIndexOf('.') + 1) + ".java";
    }

    private static void report(Path jfr) throws Exception {
        List<RecordedEvent> events = new ArrayList<>(RecordingFile.readAllEvents(jfr));
        events.removeIf(e -> !e.getEventType().getName().equals("jdk.MethodTrace"));
        events.sort(Comparator.comparing(RecordedEvent::getStartTime));
        Map<String, String> firstMethod = new LinkedHashMap<>();
        Map<String, Set<String>> reentered = new TreeMap<>();
        for (RecordedEvent e : events) {
            List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
            // the stack from its root down, as project files, consecutive repeats collapsed
            List<String> path = new ArrayList<>();
            List<String> methods = new ArrayList<>();
            for (int i = frames.size() - 1; i >= 0; i--) {
                String f = file(frames.get(i));
                if (f == null || f.equals("AllReduceWalk.java")) {
                    continue;
                }
                if (path.isEmpty() || !path.get(path.size() - 1).equals(f)) {
                    path.add(f);
                    methods.add(frames.get(i).getMethod().getName());
                }
            }
            if (path.isEmpty() || BACKGROUND.contains(path.get(0)) && !path.contains("MeshProcessGroup.java")) {
                continue;
            }
            for (int i = 0; i < path.size(); i++) {
                firstMethod.putIfAbsent(path.get(i), methods.get(i));
            }
            Set<String> seen = new LinkedHashSet<>();
            for (String f : path) {
                if (!seen.add(f)) {
                    reentered.computeIfAbsent(f, k -> new LinkedHashSet<>()).add(String.join(" > ", path));
                }
            }
        }
        System.out.println("# traced calls: " + events.size());
        System.out.println("# files in the order first entered (file: first method)");
        int i = 0;
        for (Map.Entry<String, String> e : firstMethod.entrySet()) {
            System.out.printf("%3d %s: %s%n", ++i, e.getKey(), e.getValue());
        }
        long core = firstMethod.keySet().stream().filter(CORE::contains).count();
        System.out.println("# distinct files: " + firstMethod.size() + " (" + (firstMethod.size() - core)
                + " of the transport and the store, " + core + " of core)");
        System.out.println("# files entered again on one stack: " + reentered.size());
        for (Map.Entry<String, Set<String>> e : reentered.entrySet()) {
            System.out.println("  " + e.getKey() + "  e.g. " + e.getValue().iterator().next());
        }
    }
}
