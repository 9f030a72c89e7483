package io.reactivecollectives.transport;

import io.reactivecollectives.core.Chunk;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A stream's chunk claims its memory while in flight; a chunk that fails as it starts (its dtype
 * meets a peer's other dtype or the peer's end of stream) gives its claim up, so the tensor is
 * free for the next collective on this rank.
 */
class StreamChunkClaimTest {

    @Test
    void aChunkRefusedAsItStartsLeavesItsTensorFree() {
        ClusterTesting.withCluster(2, GroupOptions.defaults().withGroupId("stream-claim-leak"), cluster -> {
            List<Tensor> a = new ArrayList<>();
            List<Tensor> b = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                a.add(ClusterTesting.filled(DType.FLOAT32, 4, 1));
                b.add(ClusterTesting.filled(DType.FLOAT32, 4, 1));
            }
            try {
                // rank 1's stream ends after chunk 0; rank 0's chunk 1 comes once rank 1's end has arrived,
                // so it meets that end as it starts (CollectiveChannel.forChunk throws) after claiming b
                List<Object> out = cluster.run(g -> {
                    int r = g.rank();
                    Flux<Chunk> chunks = r == 1 ? Flux.just(new Chunk(0, 0, a.get(r)))
                            : Flux.concat(Flux.just(new Chunk(0, 0, a.get(r))),
                                    Mono.delay(Duration.ofMillis(700)).map(x -> new Chunk(1, 4, b.get(r))));
                    return g.allReduceStream(chunks, ReduceOp.SUM, 2).then(Mono.<Object>just("done"))
                            .onErrorResume(e -> Mono.just(e));
                }).block(ClusterTesting.TIMEOUT);
                for (int r = 0; r < 2; r++) {
                    assertInstanceOf(CollectiveMismatchException.class, out.get(r), "rank " + r + ": " + out);
                }
                // before: rank 0's claim on b stayed, and this all-reduce was refused there
                // ('tensor ... is in use by allReduceStream chunk 1, still in flight on this rank')
                List<Object> next = cluster.run(g -> g.allReduce(b.get(g.rank()), ReduceOp.SUM)
                        .<Object>map(t -> t.getDouble(3)).onErrorResume(e -> Mono.just(e.toString())))
                        .block(ClusterTesting.TIMEOUT);
                assertEquals(List.of(2.0, 2.0), next);
            } finally {
                ClusterTesting.releaseAll(a);
                ClusterTesting.releaseAll(b);
            }
            return null;
        });
    }
}
