package io.reactivecollectives.transport;

import io.reactivecollectives.transport.algorithms.Topology;

import java.util.ArrayList;
import java.util.List;

/**
 * Which host each rank of a group runs on, as the ranks learnt it while connecting (every rank
 * publishes its host's identity with its address): hosts are numbered in the order of their lowest
 * rank ({@link MeshProcessGroup#topology()}). Immutable.
 *
 * @param hosts the ranks of each host, ascending, hosts in the order of their lowest rank
 */
public record HostLayout(List<List<Integer>> hosts) {

    /**
     * Copies the lists.
     *
     * @param hosts the ranks of each host
     */
    public HostLayout {
        List<List<Integer>> copy = new ArrayList<>(hosts.size());
        for (List<Integer> h : hosts) {
            copy.add(List.copyOf(h));
        }
        hosts = List.copyOf(copy);
    }

    /** The transport's own view, as a value that names no implementation class. */
    static HostLayout of(Topology t) {
        List<List<Integer>> hosts = new ArrayList<>(t.hosts());
        for (int h = 0; h < t.hosts(); h++) {
            List<Integer> ranks = new ArrayList<>();
            for (int r : t.members(h)) {
                ranks.add(r);
            }
            hosts.add(ranks);
        }
        return new HostLayout(hosts);
    }

    /** {@return the number of ranks} */
    public int size() {
        return hosts.stream().mapToInt(List::size).sum();
    }

    /**
     * The host {@code rank} runs on.
     *
     * @param rank a rank of the group
     * @return its host's number, 0 for the host of rank 0
     * @throws IllegalArgumentException when {@code rank} is not in the group
     */
    public int hostOf(int rank) {
        for (int h = 0; h < hosts.size(); h++) {
            if (hosts.get(h).contains(rank)) {
                return h;
            }
        }
        throw new IllegalArgumentException("rank " + rank + " is not in the group (" + size() + " ranks)");
    }

    @Override
    public String toString() {
        return hosts.size() + " host(s): " + hosts;
    }
}
