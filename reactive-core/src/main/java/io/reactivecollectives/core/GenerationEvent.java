package io.reactivecollectives.core;

import java.util.Arrays;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * One generation of a group's membership, as {@link ProcessGroup#generations()} reports it: a group
 * starts as generation 0 ({@link Reason#START}); each {@link ProcessGroup#shrink() shrink} makes
 * the next ({@link Reason#SHRINK}, with the ranks it lost), and so does each admission of joining
 * processes ({@link Reason#GROW}, with the ranks that joined). Members are named by their identity:
 * generation 0's rank, kept for life; a joiner takes the identity it asked for (a restarted rank's
 * own) when no member holds it, else the next unused one. Members are ascending; a member's rank in
 * this generation is its index in {@link #members()}.
 *
 * @param groupId    the group id of this generation ({@code job}, then {@code job@gen1}, ...)
 * @param generation 0 for the group as started, one more for each change
 * @param reason     why this generation began
 * @param members    its members, in generation 0's numbering, ascending (copied)
 * @param lost       the previous generation's members it no longer has, in generation 0's numbering
 *                   (copied; empty for {@link Reason#START} and {@link Reason#GROW})
 * @param joined     the members that joined in this generation (copied; empty unless {@link Reason#GROW})
 */
public record GenerationEvent(String groupId, int generation, Reason reason, int[] members, int[] lost,
                              int[] joined) {

    /** Why a generation began. */
    public enum Reason {
        /** The group was started (generation 0). */
        START,
        /** Ranks were lost and the survivors shrank to a new group. */
        SHRINK,
        /** Joining processes were admitted at a boundary the members agreed on. */
        GROW
    }

    /**
     * Checks the fields and copies the arrays.
     *
     * @param groupId    the group id of this generation
     * @param generation at least 0
     * @param reason     why it began
     * @param members    at least one rank
     * @param lost       the ranks lost, or empty
     * @param joined     the ranks that joined, or empty
     */
    public GenerationEvent {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(reason, "reason");
        if (generation < 0 || members == null || members.length == 0 || lost == null || joined == null) {
            throw new IllegalArgumentException("a generation needs a number >= 0, members, lost and joined ranks");
        }
        members = members.clone();
        lost = lost.clone();
        joined = joined.clone();
    }

    /**
     * A generation that no process joined (START or SHRINK).
     *
     * @param groupId    the group id of this generation
     * @param generation at least 0
     * @param reason     why it began
     * @param members    at least one rank
     * @param lost       the ranks lost, or empty
     */
    public GenerationEvent(String groupId, int generation, Reason reason, int[] members, int[] lost) {
        this(groupId, generation, reason, members, lost, new int[0]);
    }

    /**
     * Generation 0 of a group of {@code size} ranks.
     *
     * @param groupId the group's id
     * @param size    its world size
     * @return the START generation: members {@code 0..size-1}, none lost
     */
    public static GenerationEvent start(String groupId, int size) {
        return new GenerationEvent(groupId, 0, Reason.START, IntStream.range(0, size).toArray(), new int[0]);
    }

    /** {@return a copy of the members, in generation 0's numbering} */
    @Override
    public int[] members() {
        return members.clone();
    }

    /** {@return a copy of the ranks lost at this change, in generation 0's numbering} */
    @Override
    public int[] lost() {
        return lost.clone();
    }

    /** {@return a copy of the members that joined in this generation} */
    @Override
    public int[] joined() {
        return joined.clone();
    }

    /** {@return the world size of this generation} */
    public int size() {
        return members.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GenerationEvent e && e.generation == generation && e.reason == reason
                && e.groupId.equals(groupId) && Arrays.equals(e.members, members) && Arrays.equals(e.lost, lost) && Arrays.equals(e.joined, joined);
    }

    @Override
    public int hashCode() {
        return Objects.hash(groupId, generation, reason, Arrays.hashCode(members), Arrays.hashCode(lost), Arrays.hashCode(joined));
    }

    /**
     * A short line for a job's log: {@code 1: shrink (lost [3]) 3 ranks}, {@code 2: grow (joined [3]) 4 ranks}.
     *
     * @return the generation, why it began, who was lost or joined, and its size
     */
    public String summary() {
        String what = reason.name().toLowerCase(java.util.Locale.ROOT);
        if (lost.length > 0) {
            what += " (lost " + Arrays.toString(lost) + ")";
        }
        if (joined.length > 0) {
            what += " (joined " + Arrays.toString(joined) + ")";
        }
        return generation + ": " + what + " " + members.length + " ranks";
    }

    /** {@code generation 1 (SHRINK) of 'job@gen1': ranks [0, 1, 2], lost [3]}. */
    @Override
    public String toString() {
        return "generation " + generation + " (" + reason + ") of '" + groupId + "': ranks " + Arrays.toString(members)
                + (lost.length == 0 ? "" : ", lost " + Arrays.toString(lost))
                + (joined.length == 0 ? "" : ", joined " + Arrays.toString(joined));
    }
}
