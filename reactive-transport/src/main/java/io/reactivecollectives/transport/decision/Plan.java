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
}
