package io.reactivecollectives.transport.failure;

import java.util.Arrays;

/**
 * The decision on the join requests up to ticket {@link #handled()}: the members of the next
 * generation by identity (ascending; a member's rank is its index), those of them that join now
 * (empty when every request was refused or abandoned: then no generation begins), the job the
 * group belongs to, and who decided.
 *
 * @param generation the generation the joiners begin (unused when {@link #joined()} is empty)
 * @param groupId    that generation's group id ({@code <base>@gen<generation>})
 * @param members    the next generation's identities, ascending (copied)
 * @param joined     the identities that join, ascending (copied)
 * @param handled    the last join ticket this decision answers
 * @param job        the job id the group's flight recorders share
 * @param decider    the rank (of the generation deciding) that wrote it
 */
public record GrowPlan(int generation, String groupId, int[] members, int[] joined, long handled, String job,
                       int decider) {

    /** Copies the arrays. */
    public GrowPlan {
        members = members.clone();
        joined = joined.clone();
    }

    /** {@return whether anyone joins (else the group goes on as it is)} */
    public boolean grows() {
        return joined.length > 0;
    }

    /** {@return the next generation's size} */
    public int size() {
        return members.length;
    }

    /**
     * The rank {@code identity} has in the next generation.
     *
     * @param identity a member's identity
     * @return its rank, or -1 when it is not a member
     */
    public int rankOf(int identity) {
        int r = Arrays.binarySearch(members, identity);
        return r < 0 ? -1 : r;
    }

    @Override
    public int[] members() {
        return members.clone();
    }

    @Override
    public int[] joined() {
        return joined.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GrowPlan p && p.generation == generation && p.groupId.equals(groupId)
                && Arrays.equals(p.members, members) && Arrays.equals(p.joined, joined) && p.handled == handled
                && p.job.equals(job) && p.decider == decider;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(members) * 31 + Arrays.hashCode(joined) + Long.hashCode(handled) + generation;
    }

    @Override
    public String toString() {
        return "GrowPlan[" + groupId + ": members " + Arrays.toString(members) + ", joined " + Arrays.toString(joined)
                + ", tickets up to " + handled + ", decided by rank " + decider + "]";
    }
}
