package io.reactivecollectives.tools.launch;

/**
 * {@code collectives-run}'s checks of its counts, ranks and addresses, made before any rank
 * starts: each problem is one line naming the flag, for the usage error (exit 2).
 */
final class LaunchNumbers {

    private LaunchNumbers() {
    }

    /**
     * The first problem with the launch's numbers, or null.
     *
     * @param nprocPerNode   {@code --nproc-per-node}
     * @param nnodes         {@code --nnodes}
     * @param nodeRank       {@code --node-rank}
     * @param graceMillis    {@code --grace-ms}
     * @param maxRestarts    {@code --max-restarts}
     * @param masterAddr     {@code --master-addr}
     * @param masterPort     {@code --master-port}
     * @param storePeers     whether {@code --store-peers} was given
     * @return the problem, one line, or null
     */
    static String problem(int nprocPerNode, int nnodes, int nodeRank, long graceMillis, int maxRestarts,
                          String masterAddr, int masterPort, boolean storePeers) {
        if (nprocPerNode < 1 || nnodes < 1) {
            return nprocPerNode < 1 ? "--nproc-per-node must be >= 1, got " + nprocPerNode : "--nnodes must be >= 1, got " + nnodes;
        }
        if (nodeRank < 0 || nodeRank >= nnodes) {
            return "--node-rank must be in [0, --nnodes " + nnodes + "), got " + nodeRank;
        }
        if ((long) nprocPerNode * nnodes > Integer.MAX_VALUE) {
            return "--nnodes times --nproc-per-node exceeds " + Integer.MAX_VALUE + " ranks";
        }
        if (graceMillis < 0) {
            return "--grace-ms must be >= 0, got " + graceMillis;
        }
        if (maxRestarts < 0) {
            return "--max-restarts must be >= 0, got " + maxRestarts;
        }
        if (masterAddr.isBlank()) {
            return "--master-addr is empty; give the host of rank 0's store";
        }
        if (masterPort == 0 && nnodes > 1 && !storePeers) {
            return "--master-port is required with --nnodes > 1 (every node must use the same port)";
        }
        return null;
    }
}
