package io.reactivecollectives.transport.algorithms;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which host each rank of a group runs on, as the ranks learnt it while connecting (every rank
 * publishes its host's identity with its address): hosts are numbered in the order of their lowest
 * rank, and a rank's local index is its place among its host's ranks. Immutable.
 */
public final class Topology {

    private final int[] hostOf;
    private final int[][] members;

    private Topology(int[] hostOf) {
        this.hostOf = hostOf;
        int hosts = Arrays.stream(hostOf).max().orElse(-1) + 1;
        List<List<Integer>> m = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            m.add(new ArrayList<>());
        }
        for (int r = 0; r < hostOf.length; r++) {
            m.get(hostOf[r]).add(r);
        }
        this.members = m.stream().map(l -> l.stream().mapToInt(Integer::intValue).toArray()).toArray(int[][]::new);
    }

    /**
     * Every one of {@code size} ranks on one host.
     *
     * @param size the number of ranks
     * @return the topology
     */
    public static Topology singleHost(int size) {
        return new Topology(new int[size]);
    }

    /**
     * From each rank's host identity ({@code null}: unknown, a host of its own).
     *
     * @param hostIds one host identity per rank, in rank order
     * @return the topology
     */
    public static Topology of(String[] hostIds) {
        Map<String, Integer> index = new LinkedHashMap<>();
        int[] hostOf = new int[hostIds.length];
        for (int r = 0; r < hostIds.length; r++) {
            String id = hostIds[r] == null ? "?rank" + r : hostIds[r];
            hostOf[r] = index.computeIfAbsent(id, k -> index.size());
        }
        return new Topology(hostOf);
    }

    /** {@return the number of ranks} */
    public int size() {
        return hostOf.length;
    }

    /** {@return the number of hosts} */
    public int hosts() {
        return members.length;
    }

    /**
     * The host {@code rank} runs on.
     *
     * @param rank the rank
     * @return the host's number
     */
    public int hostOf(int rank) {
        return hostOf[rank];
    }

    /**
     * The ranks of {@code host}, ascending (a copy).
     *
     * @param host the host's number
     * @return its ranks
     */
    public int[] members(int host) {
        return members[host].clone();
    }

    /**
     * {@code rank}'s place among the ranks of its host.
     *
     * @param rank the rank
     * @return its local index
     * @throws IllegalArgumentException for a rank outside the group
     */
    public int localIndex(int rank) {
        int[] m = members[hostOf[rank]];
        for (int i = 0; i < m.length; i++) {
            if (m[i] == rank) {
                return i;
            }
        }
        throw new IllegalArgumentException("rank " + rank + " out of range");
    }

    /**
     * The ranks with {@code rank}'s local index, one per host, in host order (needs {@link #uniform()}).
     *
     * @param rank the rank
     * @return one rank per host
     */
    public int[] peersAcrossHosts(int rank) {
        int local = localIndex(rank);
        int[] out = new int[members.length];
        for (int h = 0; h < members.length; h++) {
            out[h] = members[h][local];
        }
        return out;
    }

    /** {@return whether every host runs the same number of ranks} */
    public boolean uniform() {
        for (int[] m : members) {
            if (m.length != members[0].length) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a two-level schedule applies: several hosts, the same number of ranks on each, more than one.
     *
     * @return whether it applies
     */
    public boolean multiHostMultiRank() {
        return hosts() > 1 && uniform() && members[0].length > 1;
    }

    @Override
    public String toString() {
        return hosts() + " host(s): " + Arrays.deepToString(members);
    }
}
