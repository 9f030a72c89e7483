package io.reactivecollectives.tools.launch;

import java.util.Map;

/**
 * The width of the terminal the launcher writes to, and what is left of it for a child once the
 * launcher has put its {@code [rank N] } prefix in front of each line. The children write to pipes
 * and cannot ask the terminal; {@code bin/collectives-run} exports {@code COLUMNS} from
 * {@code stty size}, and the launcher passes each child its share in {@code COLUMNS}.
 */
final class TerminalWidth {

    /** The width assumed for a terminal that does not say (a VT100's). */
    static final int DEFAULT = 80;
    /** The least width handed to a child, however narrow the terminal. */
    static final int MIN_CHILD = 20;

    private TerminalWidth() {
    }

    /**
     * The terminal's columns: {@code COLUMNS} when set to a positive number, else {@link #DEFAULT}
     * when the output is a terminal, else null (not a terminal: no width to keep to).
     */
    static Integer columns(Map<String, String> env, boolean terminal) {
        String c = env.get("COLUMNS");
        if (c != null) {
            try {
                int v = Integer.parseInt(c.trim());
                if (v > 0) {
                    return v;
                }
            } catch (NumberFormatException ignored) {
                // not a number: as if unset
            }
        }
        return terminal ? DEFAULT : null;
    }

    /** The columns a child may fill when each of its lines is preceded by {@code prefix}. */
    static int forChild(int columns, String prefix) {
        return Math.max(MIN_CHILD, columns - prefix.length());
    }
}
