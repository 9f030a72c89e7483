package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One collective's table (as a decision function of Open MPI's {@code coll_tuned}): the algorithms
 * that implement the collective, each with the name the flight recorder shows and its body. Every
 * choice of every collective goes through {@link #decide}: the forced algorithm when a row implements
 * it, the automatic one otherwise, else the {@link IllegalArgumentException} naming what the
 * collective implements. Immutable once built.
 *
 * @param <B> the shape of the collective's bodies (one functional interface per collective)
 */
public final class DecisionTable<B> {

    /** Told of every choice; tests count through it that a call chooses once. */
    static volatile Consumer<Chosen<?>> observer = c -> { };

    private final List<Row<B>> rows;
    /**
     * Each (collective, row)'s choice, made the first time it is chosen: a choice is immutable, so
     * every later call hands out the same one and a call allocates nothing to choose (a race makes
     * two equal ones, and either is right).
     */
    private final Chosen<?>[] made;

    private DecisionTable(List<Row<B>> rows) {
        this.rows = rows;
        this.made = new Chosen<?>[OpType.values().length * Math.max(1, rows.size())];
    }

    private record Row<B>(Algorithm algorithm, String name, B body) {
    }

    /**
     * A table with no rows yet.
     *
     * @param <B> the shape of the bodies
     * @return the empty table
     */
    public static <B> DecisionTable<B> of() {
        return new DecisionTable<>(List.of());
    }

    /**
     * This table with a row for {@code a}, recorded under its lower-case name.
     *
     * @param a    an algorithm a caller may force
     * @param body its body
     * @return the longer table
     */
    public DecisionTable<B> row(Algorithm a, B body) {
        return row(a, a.name().toLowerCase(Locale.ROOT), body);
    }

    /**
     * This table with a row for {@code a} recorded as {@code name}; a row for {@link Algorithm#AUTO}
     * is the collective's only, automatic, algorithm, which no caller can force by name.
     *
     * @param a    the algorithm
     * @param name the name the flight recorder shows
     * @param body its body
     * @return the longer table
     */
    public DecisionTable<B> row(Algorithm a, String name, B body) {
        List<Row<B>> more = new ArrayList<>(rows);
        more.add(new Row<>(a, name, body));
        return new DecisionTable<>(List.copyOf(more));
    }

    /**
     * The algorithms a caller may force, in the table's order.
     *
     * @return the algorithms (no {@link Algorithm#AUTO})
     */
    public List<Algorithm> implementers() {
        return rows.stream().map(Row::algorithm).filter(a -> a != Algorithm.AUTO).toList();
    }

    /**
     * The row for {@code forced}, or for {@code auto} when nothing is forced.
     *
     * @param op     the collective (its display name names it in the refusal)
     * @param forced the call's algorithm ({@link Algorithm#AUTO} to let the table choose)
     * @param auto   the automatic choice (a row of this table)
     * @return the chosen row
     * @throws IllegalArgumentException when {@code forced} does not implement {@code op}
     */
    public Chosen<B> decide(OpType op, Algorithm forced, Algorithm auto) {
        Algorithm a = forced == Algorithm.AUTO ? auto : forced;
        for (int i = 0; i < rows.size(); i++) {   // indexed: no iterator per call
            Row<B> r = rows.get(i);
            if (r.algorithm() == a && (forced == Algorithm.AUTO || a != Algorithm.AUTO)) {
                int k = op.ordinal() * rows.size() + i;
                @SuppressWarnings("unchecked")
                Chosen<B> c = (Chosen<B>) made[k];
                if (c == null) {
                    made[k] = c = new Chosen<>(op, a, r.name(), r.body());
                }
                observer.accept(c);
                return c;
            }
        }
        if (forced == Algorithm.AUTO) {
            throw new IllegalStateException(op.displayName() + ": the automatic choice " + auto + " is not in its table");
        }
        throw refusal(op, forced);
    }

    /**
     * Fails when {@code forced} is neither {@link Algorithm#AUTO} nor one of this table's algorithms.
     *
     * @param op     the collective
     * @param forced the algorithm asked for
     * @throws IllegalArgumentException when {@code forced} does not implement {@code op}
     */
    public void check(OpType op, Algorithm forced) {
        if (forced != Algorithm.AUTO && !implementers().contains(forced)) {
            throw refusal(op, forced);
        }
    }

    private IllegalArgumentException refusal(OpType op, Algorithm forced) {
        String name = op.displayName();
        List<Algorithm> allowed = implementers();
        StringBuilder use = new StringBuilder("AUTO");
        for (int i = 0; i < allowed.size(); i++) {
            use.append(i == allowed.size() - 1 ? " or " : ", ").append(allowed.get(i));
        }
        return new IllegalArgumentException(name + ": algorithm " + forced + " does not implement " + name
                + " (use " + use + ")");
    }
}
