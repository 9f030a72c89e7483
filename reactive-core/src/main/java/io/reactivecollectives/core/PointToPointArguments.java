package io.reactivecollectives.core;

import java.util.List;

import static io.reactivecollectives.core.CollectiveArguments.requirePeer;
import static io.reactivecollectives.core.CollectiveArguments.requireTensor;

/** The point-to-point checks behind {@link CollectiveArguments#batchSendRecv}. */
final class PointToPointArguments {

    private PointToPointArguments() {
    }

    static void batchSendRecv(List<P2POp> ops, int rank, int worldSize) {
        String op = "batchSendRecv";
        if (ops == null || ops.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires a non-empty list of point-to-point ops");
        }
        for (int i = 0; i < ops.size(); i++) {
            P2POp p = ops.get(i);
            if (p == null) {
                throw new IllegalArgumentException(op + ": ops[" + i + "] is null");
            }
            String what = "ops[" + i + "] (" + p.type().name().toLowerCase(java.util.Locale.ROOT) + ")";
            requireTensor(op, p.tensor(), what + " tensor");
            requirePeer(op, p.peer(), worldSize, what + " peer");
            if (p.peer() == rank) {
                throw new IllegalArgumentException(op + ": " + what + " names this rank " + rank
                        + " as its peer; a rank cannot send to or receive from itself");
            }
            if (p.type() == P2POp.Type.RECV) {
                CollectiveArguments.requireWritable(op, p.tensor(), what + " tensor");
            }
        }
    }
}
