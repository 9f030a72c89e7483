package com.example.consumer;

import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.KeyedDoubles;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.testkit.GuardsExtension;
import io.reactivecollectives.testkit.LocalClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A user's test of the object collectives as README shows them: metrics gathered, counts and features reduced by key. */
@ExtendWith(GuardsExtension.class)
class ObjectsTest {

    @RegisterExtension
    static final LocalClusterExtension CLUSTER = LocalClusterExtension.ranks(3);

    @Test
    void gathersMetricsAndReducesKeyedMaps() {
        Codec<Object> json = Codec.json(Object.class);
        List<List<Object>> metrics = CLUSTER.run(g -> g.allGatherObject(Map.of("rank", g.rank(), "loss", 0.5 * g.rank()), json));
        metrics.forEach(m -> assertEquals(List.of(Map.of("rank", 0, "loss", 0.0), Map.of("rank", 1, "loss", 0.5),
                Map.of("rank", 2, "loss", 1.0)), m));
        List<Map<String, Long>> counts = CLUSTER.run(g -> g.allReduceMap(Map.of("the", 2L, "rank" + g.rank(), 1L), Long::sum,
                Codec.json(String.class), Codec.json(Long.class)));
        counts.forEach(c -> assertEquals(Map.of("the", 6L, "rank0", 1L, "rank1", 1L, "rank2", 1L), c));
        List<KeyedDoubles> features = CLUSTER.run(g -> g.allReduceMap(KeyedDoubles.of(new long[] {7, 100L + g.rank()},
                new double[] {1.5, 1}), ReduceOp.SUM));
        features.forEach(f -> assertEquals(Map.of(7L, 4.5, 100L, 1.0, 101L, 1.0, 102L, 1.0), f.toMap()));
    }
}
