package io.reactivecollectives.core;


/**
 * How many members of the generation being left a shrink must keep: a rank that can count fewer
 * survivors (itself included) than {@link #required(int)} forms no group and fails with a
 * {@link QuorumLostException}. So a rank cut off from the others (stopped, partitioned) never goes
 * on alone, whatever the store lets it write.
 * <ul>
 *   <li>{@link #MAJORITY} (the default): more than half of the previous generation
 *   ({@code size / 2 + 1}: 3 of 4, 2 of 3, 2 of 2), as etcd's or Raft's majority;</li>
 *   <li>{@link #atLeast(int)}: a number of ranks ({@code 2}: a group of 4 may lose 2);</li>
 *   <li>{@link #fraction(double)}: a share of the previous generation, rounded up ({@code 0.5}: 2 of 4).</li>
 * </ul>
 * Every rank of a group must use the same quorum.
 */
public final class Quorum {

    /** More than half of the previous generation: {@code size / 2 + 1}. */
    public static final Quorum MAJORITY = new Quorum(0, 0);

    /** Ranks for {@link #atLeast}, 0 otherwise. */
    private final int ranks;
    /** Share for {@link #fraction}, 0 otherwise. */
    private final double share;

    private Quorum(int ranks, double share) {
        this.ranks = ranks;
        this.share = share;
    }

    /**
     * At least {@code ranks} members in every new generation (a group smaller than that can no longer shrink).
     *
     * @param ranks at least 1
     * @return the quorum
     * @throws IllegalArgumentException when {@code ranks < 1}
     */
    public static Quorum atLeast(int ranks) {
        if (ranks < 1) {
            throw new IllegalArgumentException("a quorum needs at least 1 rank, got " + ranks);
        }
        return new Quorum(ranks, 0);
    }

    /**
     * At least {@code ceil(share * size)} (and at least one) of the previous generation's {@code size} members.
     *
     * @param share in {@code (0, 1]}
     * @return the quorum
     * @throws IllegalArgumentException when {@code share} is outside {@code (0, 1]}
     */
    public static Quorum fraction(double share) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("a quorum's share must be in (0, 1], got " + share);
        }
        return new Quorum(0, share);
    }

    /**
     * Reads {@code majority}, a number of ranks ({@code 2}) or a share ({@code 0.6}, {@code 60%}), as
     * {@code rc.group.minQuorum} holds it.
     *
     * @param text the quorum
     * @return the quorum
     * @throws IllegalArgumentException when {@code text} is none of these
     */
    public static Quorum parse(String text) {
        io.reactivecollectives.core.settings.QuorumSpec q = io.reactivecollectives.core.settings.QuorumSpec.parse(text);
        return q.ranks() > 0 ? atLeast(q.ranks()) : q.share() > 0 ? fraction(q.share()) : MAJORITY;
    }

    /**
     * How many members of a generation of {@code previousSize} ranks the next generation must keep.
     *
     * @param previousSize the size of the generation being left, at least 1
     * @return the members needed, at least 1
     */
    public int required(int previousSize) {
        if (ranks > 0) {
            return ranks;
        }
        if (share > 0) {
            return Math.max(1, (int) Math.ceil(share * previousSize - 1e-9));
        }
        return previousSize / 2 + 1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Quorum q && q.ranks == ranks && q.share == share;
    }

    @Override
    public int hashCode() {
        return 31 * ranks + Double.hashCode(share);
    }

    /** {@code majority}, {@code at least 2 ranks}, {@code 0.5 of the ranks}. */
    @Override
    public String toString() {
        return ranks > 0 ? "at least " + ranks + (ranks == 1 ? " rank" : " ranks")
                : share > 0 ? share + " of the ranks" : "majority";
    }
}
