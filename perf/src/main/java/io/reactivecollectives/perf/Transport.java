package io.reactivecollectives.perf;

/** What the benchmark's header line says of the run: the socket transport and the algorithm. */
final class Transport {

    private Transport() {
    }

    static String describe() {
        return "tcp/" + io.reactivecollectives.transport.MeshProcessGroup.socketTransport();
    }

    /**
     * The transport rank {@code self} uses to its first peer and the mesh's socket transport
     * ({@code unix/epoll}, {@code tcp/nio}; {@code shm/epoll} is shared memory beside epoll sockets).
     */
    static String describe(io.reactivecollectives.core.ProcessGroup g) {
        if (g instanceof io.reactivecollectives.transport.MeshProcessGroup && g.size() > 1) {
            String t = ((io.reactivecollectives.transport.MeshProcessGroup) g).transportTo(g.rank() == 0 ? 1 : 0);
            return t + "/" + io.reactivecollectives.transport.MeshProcessGroup.socketTransport();
        }
        return describe();
    }

    /** The algorithm flag, and for AUTO the group's choice for {@code op} (the header line's {@code algorithm=}). */
    static String algorithm(io.reactivecollectives.core.Algorithm algorithm, String op, io.reactivecollectives.transport.GroupOptions go, int world) {
        String a = algorithm.name().toLowerCase(java.util.Locale.ROOT);
        if (algorithm != io.reactivecollectives.core.Algorithm.AUTO) {
            return a;
        }
        switch (op) {
            case "all_reduce":
                return "auto(recursive_doubling<="
                        + io.reactivecollectives.transport.algorithms.AlgorithmChoice.recursiveDoublingLimit(go.smallAllReduceBytes(), world) + "B,ring)";
            case "broadcast":
                return "auto(binomial_tree<="
                        + io.reactivecollectives.transport.algorithms.AlgorithmChoice.binomialTreeLimit(go.smallBroadcastBytes(), world) + "B,pipelined_chain)";
            case "all_gather":
                return "auto(ring)";
            case "reduce_scatter":
                return "auto(ring)";
            case "all_to_all":
                return "auto(pairwise)";
            default:
                return "auto";
        }
    }
}
