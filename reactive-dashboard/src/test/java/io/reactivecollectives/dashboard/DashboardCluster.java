package io.reactivecollectives.dashboard;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.transport.DashboardOptions;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LocalCluster;
import io.reactivecollectives.transport.MeshProcessGroup;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** A {@link LocalCluster} with a dashboard on every rank, and a plain HTTP client for the tests. */
final class DashboardCluster implements AutoCloseable {

    final LocalCluster cluster;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private DashboardCluster(LocalCluster cluster) {
        this.cluster = cluster;
    }

    static DashboardCluster start(int ranks, GroupOptions options) {
        return new DashboardCluster(LocalCluster.start(ranks, options).block(Duration.ofSeconds(60)));
    }

    static DashboardCluster start(int ranks) {
        return start(ranks, GroupOptions.defaults().withGroupId("dash-" + UUID.randomUUID().toString().substring(0, 8))
                .withDashboard(DashboardOptions.loopback(0)));
    }

    /** The address rank {@code r} published. */
    String base(int r) {
        MeshProcessGroup g = cluster.group(r);
        byte[] b = cluster.store().get(JobStates.key(g.view(), r), Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
        return new String(b, StandardCharsets.UTF_8);
    }

    HttpResponse<String> get(String url, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** An all-reduce of {@code n} floats on the given ranks (the others do not call it). */
    Mono<List<Double>> allReduce(int n, List<Integer> ranks) {
        return Flux.fromIterable(ranks)
                .flatMapSequential(r -> Mono.usingWhen(Mono.fromSupplier(() -> Tensor.zeros(DType.FLOAT32, n).fill(r + 1)),
                        t -> cluster.group(r).allReduce(t, ReduceOp.SUM).map(x -> x.getDouble(0)),
                        t -> Mono.fromRunnable(t::release)))
                .collectList();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
