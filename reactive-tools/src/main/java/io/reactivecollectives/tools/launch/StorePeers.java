package io.reactivecollectives.tools.launch;

import io.reactivecollectives.transport.wire.HostPorts;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --store-peers}: the nodes' launchers hold the job's store together, one replica each (Raft,
 * {@code reactive-store-raft}), so that losing any one node, node rank 0 included, loses no store.
 * Entry {@code i} is node rank {@code i}'s store, where its ranks connect ({@code MASTER_ADDR},
 * {@code MASTER_PORT}); its replica talks to the others on the next port. An IPv6 address goes in
 * brackets ({@code [fd00::2]:29500}, {@link HostPorts}).
 *
 * @param stores every node's store address, by node rank
 */
record StorePeers(List<InetSocketAddress> stores) {

    /** The fewest replicas that survive the loss of one. */
    static final int MIN_REPLICAS = 3;

    /**
     * Parses {@code spec} ({@code host:port,host:port,...}, one per node), or null when it is null.
     *
     * @throws IllegalArgumentException with a one-line message naming the option
     */
    static StorePeers parse(String spec, int nnodes) {
        if (spec == null) {
            return null;
        }
        List<InetSocketAddress> out = new ArrayList<>();
        for (String entry : spec.split(",", -1)) {
            String e = entry.trim();
            int port;
            try {
                port = HostPorts.portOf(e);
            } catch (IllegalArgumentException notHostPort) {   // NumberFormatException included
                port = -1;
            }
            String host = port < 0 ? "" : HostPorts.hostOf(e);
            if (host.isEmpty() || port < 1 || port > 65534) {
                throw new IllegalArgumentException("--store-peers: '" + entry + "' is not host:port (a port from 1"
                        + " to 65534: the replica uses the next one too)");
            }
            out.add(InetSocketAddress.createUnresolved(host, port));
        }
        if (out.size() != nnodes) {
            throw new IllegalArgumentException("--store-peers names " + out.size() + " stores for --nnodes " + nnodes
                    + ": one per node, in node rank order");
        }
        if (nnodes < MIN_REPLICAS) {
            throw new IllegalArgumentException("--store-peers needs at least " + MIN_REPLICAS + " nodes (a store held"
                    + " by " + nnodes + " survives no loss: a majority of " + nnodes + " is all of them); with fewer"
                    + " nodes use --agent-store");
        }
        if (out.stream().distinct().count() != out.size()) {
            throw new IllegalArgumentException("--store-peers names one store twice: " + spec);
        }
        return new StorePeers(List.copyOf(out));
    }

    /** {@return node {@code nodeRank}'s store host, its ranks' MASTER_ADDR} */
    String host(int nodeRank) {
        return stores.get(nodeRank).getHostString();
    }

    /** {@return node {@code nodeRank}'s store port, its ranks' MASTER_PORT} */
    int port(int nodeRank) {
        return stores.get(nodeRank).getPort();
    }

    /** {@return every replica's address for the replicas' own traffic: each store's port plus one} */
    List<InetSocketAddress> replicas() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (InetSocketAddress s : stores) {
            out.add(InetSocketAddress.createUnresolved(s.getHostString(), s.getPort() + 1));   // resolved by the replica
        }
        return out;
    }

    /** {@return the replica set's name: the same on every node of this job, different for another set of stores} */
    String group() {
        return "collectives-run:" + stores.stream().map(s -> HostPorts.format(s.getHostString(), s.getPort()))
                .collect(java.util.stream.Collectors.joining(","));
    }
}
