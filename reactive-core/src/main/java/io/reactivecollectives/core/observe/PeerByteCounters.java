package io.reactivecollectives.core.observe;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

/**
 * The per-peer byte counters of one rank ({@value MetricNames#PEER_BYTES_SENT},
 * {@value MetricNames#PEER_BYTES_RECEIVED}): registered on a peer's first bytes, so that a rank of a
 * large group that talks to few peers registers few meters; found again by index, with no lookup by
 * tag on the data path. Each meter reads a {@link LongAdder} that the data path adds to, so that the
 * counts are there to read (the dashboard reads them) even where no registry keeps counters (the
 * global registry with none added counts nothing).
 */
final class PeerByteCounters {

    private static final int FIRST_CAPACITY = 64;

    private final MeterRegistry registry;
    private final String groupId;
    private final String rankTag;
    private final UnaryOperator<Meter> track;
    private volatile AtomicReferenceArray<LongAdder> sent = new AtomicReferenceArray<>(FIRST_CAPACITY);
    private volatile AtomicReferenceArray<LongAdder> received = new AtomicReferenceArray<>(FIRST_CAPACITY);

    PeerByteCounters(MeterRegistry registry, String groupId, String rankTag, UnaryOperator<Meter> track) {
        this.registry = registry;
        this.groupId = groupId;
        this.rankTag = rankTag;
        this.track = track;
    }

    LongAdder sent(int peer) {
        return counter(true, peer);
    }

    LongAdder received(int peer) {
        return counter(false, peer);
    }

    double sentSoFar(int peer) {
        return soFar(sent, peer);
    }

    double receivedSoFar(int peer) {
        return soFar(received, peer);
    }

    private static double soFar(AtomicReferenceArray<LongAdder> counters, int peer) {
        LongAdder c = peer >= 0 && peer < counters.length() ? counters.get(peer) : null;
        return c == null ? 0 : c.sum();
    }

    private LongAdder counter(boolean out, int peer) {
        AtomicReferenceArray<LongAdder> a = out ? sent : received;
        LongAdder c = peer < a.length() ? a.get(peer) : null;
        return c != null ? c : register(out, peer);
    }

    /** Makes the peer's count and registers its meter (under the lock: once per peer). */
    private synchronized LongAdder register(boolean out, int peer) {
        AtomicReferenceArray<LongAdder> a = out ? sent : received;
        if (peer >= a.length()) {
            AtomicReferenceArray<LongAdder> bigger = new AtomicReferenceArray<>(Math.max(peer + 1, a.length() * 2));
            for (int i = 0; i < a.length(); i++) {
                bigger.set(i, a.get(i));
            }
            a = bigger;
            if (out) {
                sent = a;
            } else {
                received = a;
            }
        }
        LongAdder c = a.get(peer);
        if (c == null) {
            c = new LongAdder();
            track.apply(FunctionCounter.builder(out ? MetricNames.PEER_BYTES_SENT : MetricNames.PEER_BYTES_RECEIVED,
                            c, LongAdder::doubleValue)
                    .baseUnit("bytes").description(out ? "payload bytes sent to one peer" : "payload bytes received from one peer")
                    .tag(MetricNames.TAG_GROUP, groupId).tag(MetricNames.TAG_RANK, rankTag)
                    .tag(MetricNames.TAG_PEER, Integer.toString(peer)).register(registry));
            a.set(peer, c);
        }
        return c;
    }
}
