package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.PeerFailureException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * In-memory wires between the ranks of an algorithm's test: each message a copy in its own slot
 * (sender, receiver, step, chunk), received on another thread; remembers which rank sent to which
 * and counts the bytes each rank sends to a rank of another host.
 */
final class InMemoryWires {

    final Map<String, Sinks.One<ByteBuf>> slots = new ConcurrentHashMap<>();
    /** {@code "from>to"} for every pair that carried a message. */
    final Set<String> pairs = ConcurrentHashMap.newKeySet();
    final AtomicLong[] crossHostBytesFrom;
    final Topology topology;
    private final String op;
    private final int segmentBytes;

    InMemoryWires(Topology topology, String op, int segmentBytes) {
        this.topology = topology;
        this.op = op;
        this.segmentBytes = segmentBytes;
        crossHostBytesFrom = new AtomicLong[topology.size()];
        for (int i = 0; i < topology.size(); i++) {
            crossHostBytesFrom[i] = new AtomicLong();
        }
    }

    Sinks.One<ByteBuf> slot(int from, int to, int step, int chunk) {
        return slots.computeIfAbsent(from + ">" + to + ":" + step + ":" + chunk, k -> Sinks.one());
    }

    Peers peers(int rank) {
        InMemoryWires w = this;
        return new Peers() {
            public int rank() {
                return rank;
            }

            public int size() {
                return w.topology.size();
            }

            public String op() {
                return w.op;
            }

            public long sequence() {
                return 0;
            }

            public int segmentBytes() {
                return w.segmentBytes;
            }

            public int pipelineDepth() {
                return 2;
            }

            public Topology topology() {
                return w.topology;
            }

            public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
                return Mono.fromRunnable(() -> {
                    ByteBuf copy = payload.copy();   // the socket's copy: the sender may reuse its memory
                    payload.release();
                    w.pairs.add(rank + ">" + peer);
                    if (w.topology.hostOf(peer) != w.topology.hostOf(rank)) {
                        w.crossHostBytesFrom[rank].addAndGet(copy.readableBytes());
                    }
                    if (w.slot(rank, peer, step, chunk).tryEmitValue(copy).isFailure()) {
                        copy.release();
                        throw new IllegalStateException("sent twice: " + rank + ">" + peer + ":" + step + ":" + chunk);
                    }
                });
            }

            public Mono<ByteBuf> receive(int peer, int step, int chunk) {
                return w.slot(peer, rank, step, chunk).asMono().publishOn(Schedulers.parallel())
                        .timeout(Duration.ofSeconds(10));
            }

            public CollectiveException protocolError(int peer, String detail) {
                return new PeerFailureException(w.op, rank, 0, peer, detail, null);
            }
        };
    }
}
