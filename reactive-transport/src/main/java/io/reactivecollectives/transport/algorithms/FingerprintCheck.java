package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.observe.CollectiveFingerprint;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The optional mismatch check (as c10d's {@code TORCH_DISTRIBUTED_DEBUG=DETAIL}): before a
 * collective runs, every rank sends its {@link CollectiveFingerprint} to every other rank (step
 * {@value #STEP} of the same collective, so the exchange pairs up by sequence number whatever op
 * each rank called) and compares all of them. When they all match, the collective runs; when they
 * do not, it fails on every rank with a {@link CollectiveMismatchException} naming the ranks on each
 * side and what differed, e.g. {@code allReduce[seq=4] rank 1: collective mismatch: rank 0 has
 * allReduce(seq=4, float32, [[1024]], op=SUM) but rank 1 has allReduce(seq=4, float32, [[512]],
 * op=SUM): shapes [[1024]] vs [[512]]}. Every rank receives every fingerprint, so all ranks report
 * the same difference.
 *
 * <p>Costs one small message to and from each peer per collective: meant for debugging.
 */
public final class FingerprintCheck {

    /** The algorithm step the fingerprints travel under (algorithms use steps from 0). */
    public static final int STEP = SubAddress.FINGERPRINT_STEP;

    private static final String MARKER = "collective mismatch: ";  // how a mismatch's message begins

    private FingerprintCheck() {
    }

    /**
     * Exchanges {@code mine} with every peer of {@code p}; completes empty when every rank's
     * fingerprint equals {@code mine}, errors with a {@link CollectiveMismatchException} otherwise,
     * or with the {@link CollectiveException} of a failed exchange (a malformed fingerprint is a
     * protocol error naming the peer). Cold.
     */
    public static Mono<Void> verify(Peers p, CollectiveFingerprint mine) {
        if (p.size() == 1) {
            return Mono.empty();
        }
        return Mono.defer(() -> {
            CollectiveFingerprint[] all = new CollectiveFingerprint[p.size()];
            all[p.rank()] = mine;
            List<Mono<Void>> sends = new ArrayList<>(p.size() - 1);
            List<Mono<Void>> receives = new ArrayList<>(p.size() - 1);
            for (int q = 0; q < p.size(); q++) {
                if (q == p.rank()) {
                    continue;
                }
                int peer = q;
                sends.add(Mono.defer(() -> {
                    ByteBuf b = ByteBufAllocator.DEFAULT.buffer(mine.encodedLength());
                    mine.encode(b);
                    return p.send(peer, STEP, 0, b);
                }));
                receives.add(p.receive(peer, STEP, 0).flatMap(b -> {
                    CollectiveFingerprint theirs;
                    try {
                        theirs = CollectiveFingerprint.decode(b);
                    } catch (IllegalArgumentException e) {
                        return Mono.error(p.protocolError(peer, "rank " + peer + " sent a malformed fingerprint: "
                                + e.getMessage()));
                    } finally {
                        b.release();
                    }
                    synchronized (all) {
                        all[peer] = theirs;
                    }
                    return Mono.<Void>empty();
                }));
            }
            // compare once every fingerprint is in, so that every rank reports the same difference; if
            // the exchange fails first (a peer that found the mismatch aborted the collective), report
            // the difference already known, else the failure
            return Mono.when(Flux.merge(sends).then(), Flux.merge(receives).then())
                    .then(Mono.defer(() -> {
                        CollectiveMismatchException m = mismatch(p, all);
                        return m == null ? Mono.<Void>empty() : Mono.<Void>error(m);
                    }))
                    // a peer that saw the whole picture first aborted the collective with its finding: that
                    // arrives as a mismatch already (typed, with the peer's words); a failed exchange reports
                    // the difference known so far, else the failure
                    .onErrorMap(e -> !(e instanceof CollectiveMismatchException), e -> {
                        CollectiveMismatchException m = mismatch(p, all);
                        return m != null ? m : e;
                    });
        });
    }

    /**
     * Whether {@code error} is a mismatch this check found with every rank's fingerprint in hand:
     * every other rank that took part received the same fingerprints and finds the same mismatch by
     * itself, so the group need not tell them (an abort racing the last fingerprints would only
     * blur their report).
     */
    public static boolean seenByAll(Throwable error) {
        return error instanceof SeenByAll;
    }

    /** A mismatch found with all fingerprints known (see {@link #seenByAll}). */
    private static final class SeenByAll extends CollectiveMismatchException {
        private static final long serialVersionUID = 1L;

        SeenByAll(String op, int rank, long sequence, int peer, String detail) {
            super(op, rank, sequence, peer, detail);
        }
    }

    /** The mismatch among the fingerprints known so far, or null when they all equal this rank's. */
    private static CollectiveMismatchException mismatch(Peers p, CollectiveFingerprint[] all) {
        CollectiveFingerprint mine = all[p.rank()];
        int firstOdd = -1;
        boolean complete = true;
        synchronized (all) {
            for (int r = 0; r < all.length; r++) {
                if (all[r] == null) {
                    complete = false;
                } else if (firstOdd < 0 && !all[r].matches(mine)) {
                    firstOdd = r;
                }
            }
            if (firstOdd < 0) {
                return null;
            }
            if (complete) {
                return new SeenByAll(p.op(), p.rank(), p.sequence(), firstOdd,
                        MARKER + CollectiveFingerprint.describeMismatch(Arrays.asList(all)));
            }
            return new CollectiveMismatchException(p.op(), p.rank(), p.sequence(), firstOdd, MARKER + "rank " + p.rank()
                    + " has " + mine + " but rank " + firstOdd + " has " + all[firstOdd] + ": "
                    + CollectiveFingerprint.describeDifference(mine, all[firstOdd]));
        }
    }
}
