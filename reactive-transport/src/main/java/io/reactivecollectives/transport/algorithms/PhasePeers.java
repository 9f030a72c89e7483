package io.reactivecollectives.transport.algorithms;

import io.netty.buffer.ByteBuf;
import reactor.core.publisher.Mono;

/**
 * A view of {@link Peers} for one phase of a collective made of several algorithm runs (a
 * coalesced op running one algorithm per tensor, the sparse all-reduce's size exchange then data
 * exchange): phase {@code k}'s step {@code s} travels as step {@code k * STRIDE + s}, so the phases
 * never take each other's messages, whatever order they run in.
 */
public final class PhasePeers extends ForwardingPeers {

    /** Steps available to one phase. */
    public static final int STRIDE = SubAddress.PHASE_STRIDE;

    private final int base;

    private PhasePeers(Peers p, int phase) {
        super(p);
        this.base = Math.multiplyExact(phase, STRIDE);
    }

    /** Phase {@code phase} (0 to 2047) of {@code p}. */
    public static Peers of(Peers p, int phase) {
        if (phase < 0 || phase >= Integer.MAX_VALUE / STRIDE) {
            throw new IllegalArgumentException("phase " + phase + " out of range");
        }
        return phase == 0 ? p : new PhasePeers(p, phase);
    }

    private int step(int step) {
        if (step < 0 || step >= STRIDE) {
            throw new IllegalArgumentException("step " + step + " out of a phase's range [0, " + STRIDE + ")");
        }
        return base + step;
    }

    @Override
    public Mono<Void> send(int peer, int step, int chunk, ByteBuf payload) {
        int s;
        try {
            s = step(step);
        } catch (IllegalArgumentException e) {
            payload.release();
            return Mono.error(e);
        }
        return p.send(peer, s, chunk, payload);
    }

    @Override
    public Mono<ByteBuf> receive(int peer, int step, int chunk) {
        return Mono.defer(() -> p.receive(peer, step(step), chunk));
    }

    @Override
    public Mono<ByteBuf> receiveScattered(int peer, int step, int chunk) {
        return Mono.defer(() -> p.receiveScattered(peer, step(step), chunk));
    }

    @Override
    public Mono<ByteBuf> receiveLent(int peer, int step, int chunk) {
        return Mono.defer(() -> p.receiveLent(peer, step(step), chunk));
    }
}
