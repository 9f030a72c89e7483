package io.reactivecollectives.store.raft;

import io.reactivecollectives.core.testing.FreePorts;
import io.reactivecollectives.transport.rendezvous.StoreReplicationProvider;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;
import io.reactivecollectives.transport.rendezvous.TcpStoreServer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A replicated store on loopback for tests: {@code n} {@link TcpStoreServer}s, each a replica
 * (found through {@link StoreReplicationProvider#find()}, as the launcher finds it), started together
 * (a replica's start waits for nothing but its own port; the first write waits for an election).
 */
final class Replicas implements AutoCloseable {

    static final Duration T = Duration.ofSeconds(30);

    final List<TcpStoreServer> servers = new ArrayList<>();
    final List<TcpStore> clients = new ArrayList<>();
    private final List<Path> dirs = new ArrayList<>();
    private final StoreReplicationProvider provider = StoreReplicationProvider.find().orElseThrow();
    private final List<InetSocketAddress> peers = new ArrayList<>();
    private final String group = "test-" + UUID.randomUUID();

    Replicas(int n) {
        // below the ephemeral range: no replica's own connection to a peer can take a port first
        java.util.Set<Integer> taken = new java.util.HashSet<>();
        while (peers.size() < n) {
            int port = FreePorts.one();   // free now, but nothing binds it before the next pick: no port twice
            if (taken.add(port)) {
                peers.add(new InetSocketAddress("127.0.0.1", port));
            }
        }
        servers.addAll(Flux.range(0, n).flatMapSequential(i -> start(i)
                .subscribeOn(Schedulers.boundedElastic())).collectList().block(T));
        for (TcpStoreServer s : servers) {
            clients.add(connect(s));
        }
        // the first write waits for the replicas' first election; after it the store serves at once
        clients.get(0).set("rc/test/elected", new byte[] {1}).block(T);
        clients.get(0).delete("rc/test/elected").block(T);
    }

    /** Replica {@code i}'s server, over a fresh log directory. */
    private Mono<TcpStoreServer> start(int i) {
        Path dir = tempDir();
        dirs.add(dir);
        return TcpStoreServer.builder().unixSocket(false)
                .replicated(provider, new StoreReplicationProvider.Replicas(peers, i, group, dir))
                .start();
    }

    private static TcpStore connect(TcpStoreServer s) {
        return TcpStore.connect(TcpStoreOptions.of("127.0.0.1", s.port()).withTimeout(Duration.ofSeconds(20))).block(T);
    }

    /** Starts replica {@code i} again after {@link #lose}: same place in the set, an empty log, as a host that came back. */
    void startAgain(int i) {
        servers.set(i, start(i).block(T));
        clients.set(i, connect(servers.get(i)));
    }

    /** Stops replica {@code i} (its client first). */
    void lose(int i) {
        clients.get(i).close();
        servers.get(i).close();
    }

    /**
     * Stops every replica in the background (a replica's gRPC server takes a second to stop) and
     * returns at once: for suites that make a store per test.
     */
    void closeInBackground() {
        Schedulers.boundedElastic().schedule(this::close);
    }

    @Override
    public void close() {
        for (TcpStore c : clients) {
            c.close();
        }
        // the replicas stop together (each waits for its own threads)
        Flux.fromIterable(servers).flatMap(s -> Mono.fromRunnable(s::close)
                .subscribeOn(Schedulers.boundedElastic())).then().block(T);
        for (Path d : dirs) {
            deleteTree(d);
        }
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("rc-store-replica");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: the OS cleans it at worst
        }
    }
}
