package io.reactivecollectives.transport;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.ProcessGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The four object collectives against what PyTorch's gloo backend gave for the same JSON-shaped
 * inputs ({@code src/test/scripts/make_object_fixtures.py}: all_gather_object,
 * broadcast_object_list, gather_object, scatter_object_list, world sizes 2 to 4, every root).
 * Where c10d gives None (a gather's non-root ranks) the library emits an empty list.
 */
class ObjectGoldenTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Codec<Object> CODEC = Codec.json(Object.class);
    private static final Map<Integer, LocalCluster> CLUSTERS = new HashMap<>();
    private static List<Map<String, Object>> cases;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void load() throws IOException {
        try (InputStream in = ObjectGoldenTest.class.getResourceAsStream("/golden/objects.json")) {
            Map<String, Object> doc = JSON.readValue(in, Map.class);
            assertEquals("gloo", doc.get("backend"));
            cases = (List<Map<String, Object>>) doc.get("cases");
        }
        for (int w = 2; w <= 4; w++) {
            CLUSTERS.put(w, LocalCluster.start(w, GroupOptions.defaults().withGroupId("objects-golden-" + w))
                    .block(ClusterTesting.TIMEOUT));
        }
    }

    @AfterAll
    static void close() {
        CLUSTERS.values().forEach(LocalCluster::close);
    }

    @Test
    void allGatherObjectGivesWhatGlooGives() {
        assertEquals(19, runAll("all_gather_object", (g, in, root) -> g.allGatherObject(in, CODEC).map(l -> (Object) l)));
    }

    @Test
    void broadcastObjectGivesWhatGlooGives() {
        // c10d broadcasts a list in place; here the root's list is the one object broadcast
        assertEquals(25, runAll("broadcast_object_list", (g, in, root) ->
                g.broadcastObject(g.rank() == root ? in : null, root, CODEC)));
    }

    @Test
    void gatherObjectGivesWhatGlooGives() {
        assertEquals(25, runAll("gather_object", (g, in, root) -> g.gatherObject(in, root, CODEC)
                .map(l -> g.rank() == root ? (Object) l : emptyMeansNone(l))));
    }

    @Test
    void scatterObjectGivesWhatGlooGives() {
        assertEquals(25, runAll("scatter_object_list", (g, in, root) -> g.scatterObject(castList(in), root, CODEC)));
    }

    /** c10d's None on a gather's non-root ranks; the library's empty list. */
    private static Object emptyMeansNone(List<Object> l) {
        assertTrue(l.isEmpty(), "a non-root rank's gather result is empty: " + l);
        return NONE;
    }

    private static final Object NONE = new Object();

    @SuppressWarnings("unchecked")
    private static List<Object> castList(Object o) {
        return (List<Object>) o;
    }

    @FunctionalInterface
    interface Call {
        Mono<Object> run(ProcessGroup g, Object input, int root);
    }

    @SuppressWarnings("unchecked")
    private static int runAll(String op, Call call) {
        int n = 0;
        for (Map<String, Object> c : cases) {
            if (!op.equals(c.get("op"))) {
                continue;
            }
            int world = (Integer) c.get("world_size");
            int root = c.get("root") == null ? -1 : (Integer) c.get("root");
            List<Object> inputs = (List<Object>) c.get("inputs");
            List<Object> outputs = (List<Object>) c.get("outputs");
            String where = op + "/" + c.get("name");
            Mono<List<Optional<Object>>> all = CLUSTERS.get(world).run(g ->
                    call.run(g, inputs.get(g.rank()), root).map(Optional::of).defaultIfEmpty(Optional.empty()));
            StepVerifier.create(all)
                    .assertNext(got -> {
                        assertEquals(world, got.size(), where);
                        for (int r = 0; r < world; r++) {
                            Object want = outputs.get(r);
                            Object have = got.get(r).orElse(null);
                            if (have == NONE) {
                                assertEquals(null, want, where + " rank " + r + ": gloo gave a value, the library none");
                            } else {
                                assertEquals(want, have, where + " rank " + r);
                            }
                        }
                    })
                    .expectComplete()
                    .verify(ClusterTesting.TIMEOUT);
            n++;
        }
        return n;
    }

    /** Values arrive as decoded copies: lists are unmodifiable, their elements equal but not the same objects. */
    @Test
    void resultsAreCopiesInAnUnmodifiableList() {
        LocalCluster cluster = CLUSTERS.get(2);
        List<Object> mine = new ArrayList<>(List.of("a", 1));
        List<List<Object>> got = cluster.run(g -> g.allGatherObject((Object) mine, CODEC)).block(ClusterTesting.TIMEOUT);
        assertEquals(List.of(mine, mine), got.get(0));
        assertTrue(got.get(0).get(0) != mine, "rank 0's own entry is a decoded copy, as c10d's");
        StepVerifier.create(Mono.fromRunnable(() -> got.get(0).add(Collections.emptyList())))
                .expectError(UnsupportedOperationException.class)
                .verify();
    }
}
