package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.transport.LocalCluster;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/** Runs a function on every rank of a fresh {@link LocalCluster} (real ranks over loopback). */
final class ClusterFixture {

    private ClusterFixture() {
    }

    static <T> List<T> onRanks(int world, Function<ProcessGroup, Mono<T>> body) {
        LocalCluster cluster = LocalCluster.start(world).block(Duration.ofSeconds(30));
        try {
            return cluster.run(body).block(Duration.ofSeconds(60));
        } finally {
            cluster.close();
        }
    }
}
