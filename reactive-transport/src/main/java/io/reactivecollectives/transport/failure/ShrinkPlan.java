package io.reactivecollectives.transport.failure;

import java.util.Arrays;

/**
 * The membership of a new generation as decided by {@link ShrinkPlanner}, seen from one of its
 * members.
 *
 * @param generation the new generation (the old one plus one)
 * @param groupId    the new generation's group id, {@code <base>@gen<generation>}
 * @param members    the old ranks that form the new generation, ascending; the new rank of
 *                   {@code members[i]} is {@code i}
 * @param newRank    this rank's rank in the new generation
 * @param decider    the old rank whose decision was written to the store (every member adopted it)
 */
public record ShrinkPlan(int generation, String groupId, int[] members, int newRank, int decider) {

    /** Checks the fields and keeps a copy of {@code members}. */
    public ShrinkPlan {
        if (members == null || members.length == 0) {
            throw new IllegalArgumentException("a shrink plan needs at least one member");
        }
        members = members.clone();
        if (newRank < 0 || newRank >= members.length) {
            throw new IllegalArgumentException("new rank " + newRank + " outside the " + members.length + " members");
        }
    }

    /** A copy of the old ranks that form the new generation, ascending. */
    @Override
    public int[] members() {
        return members.clone();
    }

    /** The new generation's world size. */
    public int size() {
        return members.length;
    }

    /** The old rank of this member. */
    public int oldRank() {
        return members[newRank];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShrinkPlan p && p.generation == generation && p.groupId.equals(groupId)
                && Arrays.equals(p.members, members) && p.newRank == newRank && p.decider == decider;
    }

    @Override
    public int hashCode() {
        return (31 * generation + groupId.hashCode()) * 31 + Arrays.hashCode(members) * 31 + newRank;
    }

    @Override
    public String toString() {
        return "ShrinkPlan[" + groupId + ": members " + Arrays.toString(members) + ", new rank " + newRank
                + " (old rank " + oldRank() + "), decided by rank " + decider + "]";
    }
}
