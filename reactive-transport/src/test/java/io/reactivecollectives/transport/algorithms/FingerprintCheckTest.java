package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fingerprint exchange over an in-memory {@link Peers} (one mailbox slot per (from, to, step, chunk)). */
class FingerprintCheckTest {

    /** In-memory wires between N ranks; a send may be replaced by a tampering function. */
    private static final class Wires {
        final Map<String, Sinks.One<ByteBuf>> slots = new ConcurrentHashMap<>();

        Sinks.One<ByteBuf> slot(int from, int to, int step, int chunk) {
            return slots.computeIfAbsent(from + ">" + to + ":" + step + ":" + chunk, k -> Sinks.one());
        }

        /** Releases what nobody received. */
        void drain() {
            for (Sinks.One<ByteBuf> s : slots.values()) {
                s.tryEmitEmpty(); // completes the slots nobody sent to; the others keep their value
                ByteBuf b = s.asMono().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(1));
                if (b != null && b.refCnt() > 0) {
                    b.release();
                }
            }
        }
    }

    private static Peers peers(Wires w, int rank, int size, String op, long seq, Function<ByteBuf, ByteBuf> tamper) {
        return new Peers() {
            public int rank() {
                return rank;
            }

            public int size() {
                return size;
            }

            public String op() {
                return op;
            }

            public long sequence() {
                return seq;
            }

            public int segmentBytes() {
                return 1024;
            }

            public int pipelineDepth() {
                return 2;
            }

            public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
                return Mono.fromRunnable(() -> w.slot(rank, peer, step, chunk).tryEmitValue(tamper.apply(payload)));
            }

            public Mono<ByteBuf> receive(int peer, int step, int chunk) {
                return w.slot(peer, rank, step, chunk).asMono().publishOn(Schedulers.parallel())
                        .timeout(Duration.ofSeconds(5));
            }

            public CollectiveException protocolError(int peer, String detail) {
                return new PeerFailureException(op, rank, seq, peer, detail, null);
            }
        };
    }

    private static List<Throwable> run(List<CollectiveFingerprint> fps, Function<ByteBuf, ByteBuf> tamperOfRank0) {
        Wires w = new Wires();
        int n = fps.size();
        try {
            List<Mono<Throwable>> ranks = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                Peers p = peers(w, r, n, fps.get(r).op().displayName(), fps.get(r).sequence(),
                        r == 0 ? tamperOfRank0 : Function.identity());
                ranks.add(FingerprintCheck.verify(p, fps.get(r)).then(Mono.<Throwable>empty())
                        .onErrorResume(Mono::just).defaultIfEmpty(new NoError()));
            }
            // all ranks subscribed at once, results in rank order
            List<Throwable> out = Flux.mergeSequential(ranks).collectList().block(Duration.ofSeconds(10));
            out.replaceAll(t -> t instanceof NoError ? null : t);
            return out;
        } finally {
            w.drain();
        }
    }

    private static final class NoError extends RuntimeException {
    }

    private static CollectiveFingerprint fp(OpType op, long... shape) {
        return new CollectiveFingerprint(op, 4, DType.FLOAT32, List.of(shape), -1,
                op == OpType.ALLREDUCE ? ReduceOp.SUM : null);
    }

    @Test
    void equalFingerprintsPass() {
        List<Throwable> errs = run(List.of(fp(OpType.ALLREDUCE, 8), fp(OpType.ALLREDUCE, 8), fp(OpType.ALLREDUCE, 8)),
                Function.identity());
        errs.forEach(e -> assertNull(e, String.valueOf(e)));
    }

    @Test
    void shapeMismatchFailsEveryRankWithTheSameDescription() {
        List<Throwable> errs = run(List.of(fp(OpType.ALLREDUCE, 8), fp(OpType.ALLREDUCE, 4), fp(OpType.ALLREDUCE, 8),
                fp(OpType.ALLREDUCE, 8)), Function.identity());
        for (int r = 0; r < 4; r++) {
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, errs.get(r));
            assertEquals(r, e.rank());
            assertEquals(4, e.sequence());
            assertEquals("allReduce[seq=4] rank " + r + ": collective mismatch: ranks 0, 2, 3 have allReduce(seq=4, "
                    + "float32, [[8]], op=SUM) but rank 1 has allReduce(seq=4, float32, [[4]], op=SUM): shapes [[8]] vs [[4]]",
                    e.getMessage());
        }
        assertEquals(1, ((CollectiveMismatchException) errs.get(0)).peer());
        assertEquals(0, ((CollectiveMismatchException) errs.get(1)).peer());
    }

    @Test
    void opOrderMismatchNamesBothOps() {
        List<Throwable> errs = run(List.of(fp(OpType.ALLREDUCE, 8), fp(OpType.BROADCAST, 8)), Function.identity());
        assertTrue(errs.get(0).getMessage().startsWith("allReduce[seq=4] rank 0: collective mismatch: rank 0 has allReduce"),
                errs.get(0).getMessage());
        assertTrue(errs.get(1).getMessage().startsWith("broadcast[seq=4] rank 1: collective mismatch:"), errs.get(1).getMessage());
        for (Throwable e : errs) {
            assertTrue(e.getMessage().contains("op allReduce vs broadcast"), e.getMessage());
        }
    }

    @Test
    void malformedFingerprintIsAProtocolErrorNamingThePeer() {
        Function<ByteBuf, ByteBuf> garble = b -> {
            b.release();
            return ByteBufAllocator.DEFAULT.buffer(3).writeByte(1).writeByte(2).writeByte(3);
        };
        List<Throwable> errs = run(List.of(fp(OpType.ALLREDUCE, 8), fp(OpType.ALLREDUCE, 8)), garble);
        assertNull(errs.get(0));
        PeerFailureException e = assertInstanceOf(PeerFailureException.class, errs.get(1));
        assertEquals(0, e.peer());
        assertTrue(e.getMessage().contains("rank 0 sent a malformed fingerprint: malformed collective fingerprint"),
                e.getMessage());
    }

    @Test
    void aPeersAbortCarryingItsFindingBecomesAMismatchHere() {
        Wires w = new Wires();
        try {
            // a peer's finding arrives typed (an ABORT of kind MISMATCH becomes a mismatch on the receiving
            // rank, with the peer's words); nothing parses message text
            CollectiveException remote = new CollectiveMismatchException("allReduce", 0, 4, 2,
                    "collective mismatch: rank 2 has X but rank 3 has Y: shapes (reported by rank 2)");
            w.slot(2, 0, FingerprintCheck.STEP, 0).tryEmitError(remote);
            w.slot(2, 1, FingerprintCheck.STEP, 0).tryEmitError(new IllegalStateException("unrelated"));
            Mono<Throwable> r0 = FingerprintCheck.verify(peers(w, 0, 3, "allReduce", 4, Function.identity()),
                    fp(OpType.ALLREDUCE, 8)).then(Mono.<Throwable>empty()).onErrorResume(Mono::just);
            Mono<Throwable> r1 = FingerprintCheck.verify(peers(w, 1, 3, "allReduce", 4, Function.identity()),
                    fp(OpType.ALLREDUCE, 8)).then(Mono.<Throwable>empty()).onErrorResume(Mono::just);
            List<Throwable> errs = Flux.mergeSequential(r0, r1).collectList().block(Duration.ofSeconds(10));
            CollectiveMismatchException e = assertInstanceOf(CollectiveMismatchException.class, errs.get(0));
            assertEquals("allReduce[seq=4] rank 0: collective mismatch: rank 2 has X but rank 3 has Y: shapes"
                    + " (reported by rank 2)", e.getMessage());
            assertEquals(2, e.peer());
            assertInstanceOf(IllegalStateException.class, errs.get(1), "other failures pass through");
        } finally {
            w.drain();
        }
    }

    @Test
    void singleRankHasNothingToCompare() {
        List<Throwable> errs = run(List.of(fp(OpType.BARRIER)), Function.identity());
        assertNull(errs.get(0));
    }
}
