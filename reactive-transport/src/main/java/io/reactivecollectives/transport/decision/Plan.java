package io.reactivecollectives.transport.decision;

/**
 * What a collective's decision chose for one call, made once as the call's arguments are checked
 * (before anything is sent) and carried into the collective's body, which runs it.
 */
public interface Plan {

    /**
     * The algorithm as the flight recorder names it ({@code "ring"}, {@code "dissemination"}).
     *
     * @return the name, never null
     */
    String recordedName();

    /**
     * The algorithm as the ranks compare it in every frame's agreement word (0 to 127; 0: not
     * compared), so that ranks that chose differently (a {@code CollectiveOptions.algorithm} forced
     * on some ranks only, a setting that differs between processes) fail on every rank with a
     * mismatch naming the algorithms instead of waiting for frames that never come.
     *
     * @return the code; 0 by default
     */
    default int agreementCode() {
        return 0;
    }
}
