package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.transport.algorithms.BruckAllToAll;
import io.reactivecollectives.transport.algorithms.PairwiseAllToAll;
import io.reactivecollectives.transport.algorithms.Peers;
import io.reactivecollectives.transport.algorithms.Region;
import reactor.core.publisher.Mono;

/**
 * All-to-all (of lists, of one tensor with split sizes): the pairwise exchange, or Bruck's rounds in
 * a group above {@code rc.mesh.fullUpTo} ranks.
 */
public final class AllToAllDecision {

    /** An all-to-all's body: {@code send[q]} to rank q, rank q's into {@code recv[q]}. */
    @FunctionalInterface
    public interface Body {
        /**
         * Runs the algorithm.
         *
         * @param p    the ranks
         * @param send one region per rank to send
         * @param recv one region per rank to receive into
         * @return completes when done
         */
        Mono<Void> run(Peers p, Region[] send, Region[] recv);
    }

    /** The algorithm that implements all-to-all, with its body. */
    public static final DecisionTable<Body> TABLE = DecisionTable.<Body>of()
            .row(Algorithm.PAIRWISE, PairwiseAllToAll::run)
            .row(Algorithm.BRUCK, BruckAllToAll::run);

    private AllToAllDecision() {
    }

    /**
     * The algorithm for an all-to-all.
     *
     * @param op     the collective ({@link OpType#ALLTOALL}, {@link OpType#ALLTOALL_BASE})
     * @param forced the call's algorithm
     * @param g      the group: above {@code rc.mesh.fullUpTo} ranks ({@link GroupShape#sparseMesh()}),
     *               Bruck's rounds with the peers a power of two away instead of every pair
     * @return the choice
     * @throws IllegalArgumentException when {@code forced} does not implement all-to-all
     */
    public static Chosen<Body> decide(OpType op, Algorithm forced, GroupShape g) {
        return TABLE.decide(op, forced, g.sparseMesh() ? Algorithm.BRUCK : Algorithm.PAIRWISE);
    }
}
