package io.reactivecollectives.transport;

import com.fasterxml.jackson.databind.JsonNode;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.SparseTensor;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static io.reactivecollectives.transport.FullSetTesting.describe;
import static io.reactivecollectives.transport.FullSetTesting.same;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * This library's outputs against PyTorch's gloo backend: every case of every fixture file in
 * {@code src/test/resources/golden/} (made by {@code src/test/scripts/make_golden_fixtures.py}) at
 * world sizes 2, 3 and 4, run on real ranks, compared bit for bit (AVG on floating point within a
 * float tolerance; integer AVG is exact, truncated as in the fixtures).
 */
class GoldenFixturesTest {

    private static final String[] OPS = {"all_gather", "all_gather_coalesced", "all_gather_into_tensor", "all_reduce",
            "all_reduce_sparse", "all_to_all", "all_to_all_single", "broadcast", "gather", "reduce_scatter",
            "reduce_scatter_tensor", "scatter"};

    static Stream<Arguments> opsAndWorlds() {
        List<Arguments> out = new ArrayList<>();
        for (String op : OPS) {
            for (int world = 2; world <= 4; world++) {
                out.add(Arguments.of(op, world));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} world {1}")
    @MethodSource("opsAndWorlds")
    void matchesGloo(String op, int world) {
        List<JsonNode> cases = Golden.cases(op).stream().filter(c -> c.get("world_size").asInt() == world).toList();
        assertFalse(cases.isEmpty(), "fixture " + op + " has no case for world size " + world);
        FullSetTesting.withCluster(world, GroupOptions.defaults().withGroupId("golden-" + op), cluster -> {
            for (int k = 0; k < cases.size(); k++) {
                String where = op + " world " + world + " case " + k + " (" + cases.get(k).get("dtype").asText()
                        + (cases.get(k).has("reduce_op") ? " " + cases.get(k).get("reduce_op").asText() : "") + ")";
                runCase(cluster, op, cases.get(k), where);
            }
            return null;
        });
    }

    private static void runCase(LocalCluster cluster, String op, JsonNode c, String where) {
        int world = cluster.size();
        JsonNode in = c.get("inputs");
        JsonNode want = c.get("outputs");
        ReduceOp rop = c.has("reduce_op") ? ReduceOp.parse(c.get("reduce_op").asText()) : null;
        int root = c.has("root") ? c.get("root").asInt() : -1;
        List<Tensor> owned = new ArrayList<>();
        try {
            switch (op) {
                case "all_gather": {
                    List<Tensor> inputs = keep(owned, Golden.tensors(in));
                    List<List<Tensor>> outs = new ArrayList<>();
                    for (int r = 0; r < world; r++) {
                        outs.add(keep(owned, zerosLike(want.get(r))));
                    }
                    run(cluster, g -> g.allGather(outs.get(g.rank()), inputs.get(g.rank())));
                    for (int r = 0; r < world; r++) {
                        compareAll(owned, outs.get(r), want.get(r), null, where + " rank " + r);
                    }
                    break;
                }
                case "all_gather_coalesced": {
                    List<List<Tensor>> inputs = new ArrayList<>();
                    List<List<List<Tensor>>> outs = new ArrayList<>();
                    for (int r = 0; r < world; r++) {
                        inputs.add(keep(owned, Golden.tensors(in.get(r))));
                        List<List<Tensor>> o = new ArrayList<>();
                        for (JsonNode perInput : want.get(r)) {
                            o.add(keep(owned, zerosLike(perInput)));
                        }
                        outs.add(o);
                    }
                    run(cluster, g -> g.allGatherCoalesced(outs.get(g.rank()), inputs.get(g.rank())));
                    for (int r = 0; r < world; r++) {
                        for (int i = 0; i < outs.get(r).size(); i++) {
                            compareAll(owned, outs.get(r).get(i), want.get(r).get(i), null, where + " rank " + r + " tensor " + i);
                        }
                    }
                    break;
                }
                case "all_gather_into_tensor": {
                    List<Tensor> inputs = keep(owned, Golden.tensors(in));
                    List<Tensor> outs = keep(owned, zerosLike(want));
                    run(cluster, g -> g.allGatherInto(outs.get(g.rank()), inputs.get(g.rank())));
                    compareAll(owned, outs, want, null, where);
                    break;
                }
                case "all_reduce": {
                    List<Tensor> ts = keep(owned, Golden.tensors(in));
                    run(cluster, g -> g.allReduce(ts.get(g.rank()), rop));
                    compareAll(owned, ts, want, rop, where);
                    break;
                }
                case "broadcast": {
                    List<Tensor> ts = keep(owned, Golden.tensors(in));
                    run(cluster, g -> g.broadcast(ts.get(g.rank()), root));
                    compareAll(owned, ts, want, null, where);
                    break;
                }
                case "all_reduce_sparse": {
                    List<SparseTensor> inputs = new ArrayList<>();
                    in.forEach(n -> inputs.add(Golden.sparse(n)));
                    List<SparseTensor> results = new ArrayList<>();
                    try {
                        results.addAll(run(cluster, g -> g.allReduceSparse(inputs.get(g.rank()), ReduceOp.SUM)));
                        for (int rank = 0; rank < world; rank++) {
                            int r = rank;
                            SparseTensor expected = Golden.sparse(want.get(r));
                            try {
                                SparseTensor got = results.get(r);
                                assertTrue(got.contentEquals(expected), () -> where + " rank " + r + ": " + got + " "
                                        + describe(got.indices()) + " " + describe(got.values()) + " vs " + expected
                                        + " " + describe(expected.indices()) + " " + describe(expected.values()));
                            } finally {
                                expected.release();
                            }
                        }
                    } finally {
                        inputs.forEach(SparseTensor::release);
                        results.forEach(SparseTensor::release);
                    }
                    break;
                }
                case "all_to_all": {
                    List<List<Tensor>> inputs = new ArrayList<>();
                    List<List<Tensor>> outs = new ArrayList<>();
                    for (int r = 0; r < world; r++) {
                        inputs.add(keep(owned, Golden.tensors(in.get(r))));
                        outs.add(keep(owned, zerosLike(want.get(r))));
                    }
                    run(cluster, g -> g.allToAll(outs.get(g.rank()), inputs.get(g.rank())));
                    for (int r = 0; r < world; r++) {
                        compareAll(owned, outs.get(r), want.get(r), null, where + " rank " + r);
                    }
                    break;
                }
                case "all_to_all_single": {
                    List<Tensor> inputs = keep(owned, Golden.tensors(in));
                    List<Tensor> outs = keep(owned, zerosLike(want));
                    JsonNode is = c.get("input_splits");
                    JsonNode os = c.get("output_splits");
                    run(cluster, g -> g.allToAllSingle(outs.get(g.rank()), inputs.get(g.rank()),
                            Golden.longs(os.get(g.rank())), Golden.longs(is.get(g.rank()))));
                    compareAll(owned, outs, want, null, where);
                    break;
                }
                case "gather": {
                    List<Tensor> inputs = keep(owned, Golden.tensors(in));
                    List<Tensor> outs = keep(owned, zerosLike(want.get(root)));
                    for (int r = 0; r < world; r++) {
                        assertTrue(r == root || want.get(r).isNull(), where + ": fixture has outputs on non-root " + r);
                    }
                    run(cluster, g -> g.gather(g.rank() == root ? outs : List.of(), inputs.get(g.rank()), root));
                    compareAll(owned, outs, want.get(root), null, where + " root " + root);
                    break;
                }
                case "scatter": {
                    List<Tensor> inputs = keep(owned, Golden.tensors(in.get(root)));
                    List<Tensor> outs = keep(owned, zerosLike(want));
                    run(cluster, g -> g.scatter(outs.get(g.rank()), g.rank() == root ? inputs : List.of(), root));
                    compareAll(owned, outs, want, null, where + " root " + root);
                    break;
                }
                case "reduce_scatter": {
                    List<List<Tensor>> inputs = new ArrayList<>();
                    for (int r = 0; r < world; r++) {
                        inputs.add(keep(owned, Golden.tensors(in.get(r))));
                    }
                    List<Tensor> outs = keep(owned, zerosLike(want));
                    run(cluster, g -> g.reduceScatter(outs.get(g.rank()), inputs.get(g.rank()), rop));
                    compareAll(owned, outs, want, rop, where);
                    break;
                }
                case "reduce_scatter_tensor": {
                    List<Tensor> inputs = keep(owned, Golden.tensors(in));
                    List<Tensor> outs = keep(owned, zerosLike(want));
                    run(cluster, g -> g.reduceScatterTensor(outs.get(g.rank()), inputs.get(g.rank()), rop));
                    compareAll(owned, outs, want, rop, where);
                    break;
                }
                default:
                    fail("no runner for fixture " + op);
            }
        } finally {
            FullSetTesting.release(owned);
        }
    }

    private static <T> List<T> run(LocalCluster cluster, Function<ProcessGroup, Mono<T>> body) {
        List<T> out = cluster.run(body::apply).block(FullSetTesting.TIMEOUT);
        assertEquals(cluster.size(), out == null ? 0 : out.size(), "one result per rank");
        return out;
    }

    private static List<Tensor> keep(List<Tensor> owned, List<Tensor> ts) {
        owned.addAll(ts);
        return ts;
    }

    /** Zero tensors shaped like each tensor of a JSON array. */
    private static List<Tensor> zerosLike(JsonNode array) {
        List<Tensor> out = new ArrayList<>();
        for (JsonNode n : array) {
            out.add(Tensor.zeros(DType.parse(n.get("dtype").asText()), Golden.longs(n.get("shape"))));
        }
        return out;
    }

    private static void compareAll(List<Tensor> owned, List<Tensor> got, JsonNode want, ReduceOp op, String where) {
        assertEquals(want.size(), got.size(), where + ": number of tensors");
        for (int i = 0; i < got.size(); i++) {
            Tensor expected = Golden.tensor(want.get(i));
            owned.add(expected);
            Tensor g = got.get(i);
            boolean ok = op != null && op.kind() == ReduceOp.Kind.AVG && expected.dtype().isFloatingPoint()
                    ? g.allClose(expected, tolerance(expected.dtype()), tolerance(expected.dtype()))
                    : same(g, expected);
            int idx = i;
            assertTrue(ok, () -> where + " tensor " + idx + ": " + describe(g) + " vs gloo " + describe(expected));
        }
    }

    private static double tolerance(DType dtype) {
        return dtype == DType.FLOAT16 || dtype == DType.BFLOAT16 ? 1e-2 : 1e-6;
    }
}
