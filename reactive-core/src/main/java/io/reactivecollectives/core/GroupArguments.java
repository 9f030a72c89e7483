package io.reactivecollectives.core;

import java.util.List;
import java.util.TreeSet;

/** The checks behind {@link CollectiveArguments#newGroup} and {@link CollectiveArguments#split}. */
final class GroupArguments {

    private GroupArguments() {
    }

    static int[] newGroup(List<Integer> ranks, int worldSize) {
        String op = "newGroup";
        if (ranks == null || ranks.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires a non-empty list of ranks");
        }
        TreeSet<Integer> set = new TreeSet<>();
        for (Integer r : ranks) {
            if (r == null || r < 0 || r >= worldSize) {
                throw new IllegalArgumentException(op + ": invalid rank " + r + " for world size " + worldSize);
            }
            if (!set.add(r)) {
                throw new IllegalArgumentException(op + ": rank " + r + " appears more than once in " + ranks);
            }
        }
        return set.stream().mapToInt(Integer::intValue).toArray();
    }

    static void split(List<List<Integer>> partition, int worldSize) {
        String op = "split";
        if (partition == null || partition.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires a non-empty list of rank lists");
        }
        TreeSet<Integer> seen = new TreeSet<>();
        for (List<Integer> ranks : partition) {
            int[] members;
            try {
                members = newGroup(ranks, worldSize);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(op + e.getMessage().substring("newGroup".length()), e);
            }
            for (int r : members) {
                if (!seen.add(r)) {
                    throw new IllegalArgumentException(op + ": rank " + r + " is in more than one group of " + partition);
                }
            }
        }
    }
}
