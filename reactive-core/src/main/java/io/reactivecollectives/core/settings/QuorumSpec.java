package io.reactivecollectives.core.settings;

import java.util.Locale;

/**
 * The grammar of a quorum's text ({@code rc.group.minQuorum}, {@code collectives-run --min-quorum}):
 * {@code majority}, a whole number of ranks (at least 1), or a share in (0, 1] written with a dot
 * ({@code 0.6}) or as a percentage ({@code 60%}). Here, in the settings package, so that the
 * registry's check and {@code Quorum.parse} read it the same way.
 *
 * @param ranks the ranks to keep, or 0
 * @param share the share of the ranks to keep, or 0 (both 0: a majority)
 */
public record QuorumSpec(int ranks, double share) {

    /** A majority of the ranks. */
    public static final QuorumSpec MAJORITY = new QuorumSpec(0, 0);

    /**
     * Checks the parts.
     *
     * @param ranks the ranks to keep, or 0
     * @param share the share of the ranks to keep, or 0
     * @throws IllegalArgumentException for ranks below 0, a share outside [0, 1], or both set
     */
    public QuorumSpec {
        if (ranks < 0 || !(share >= 0 && share <= 1) || (ranks > 0 && share > 0)) {
            throw new IllegalArgumentException("a quorum is a number of ranks >= 1 or a share in (0, 1], got " + ranks
                    + " ranks and share " + share);
        }
    }

    /**
     * Reads a quorum's text.
     *
     * @param text the text
     * @return what it says
     * @throws IllegalArgumentException when it is none of the spellings, or out of range
     */
    public static QuorumSpec parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.equals("majority")) {
                return MAJORITY;
            }
            if (t.endsWith("%")) {
                return share(Double.parseDouble(t.substring(0, t.length() - 1).trim()) / 100);
            }
            if (t.contains(".")) {
                return share(Double.parseDouble(t));
            }
            int ranks = Integer.parseInt(t);
            if (ranks < 1) {
                throw new IllegalArgumentException("a quorum needs at least 1 rank, got " + ranks);
            }
            return new QuorumSpec(ranks, 0);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a quorum is 'majority', a number of ranks (2) or a share (0.6, 60%),"
                    + " got '" + text + "'", e);
        }
    }

    private static QuorumSpec share(double share) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("a quorum's share must be in (0, 1], got " + share);
        }
        return new QuorumSpec(0, share);
    }
}
