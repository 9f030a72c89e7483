package io.reactivecollectives.transport.decision;

import io.reactivecollectives.core.Algorithm;
import io.reactivecollectives.core.OpType;

/**
 * One row of a {@link DecisionTable}, chosen for one call: the algorithm, its recorded name and
 * the body that runs it.
 *
 * @param op           the collective the choice was made for
 * @param algorithm    the algorithm ({@link Algorithm#AUTO} for a collective with a single
 *                     automatic algorithm, as the barrier)
 * @param recordedName the name the flight recorder shows
 * @param body         the algorithm's body, of the collective's own shape
 * @param <B>          the shape of the collective's bodies
 */
public record Chosen<B>(OpType op, Algorithm algorithm, String recordedName, B body) implements Plan {

    /** {@return the algorithm's ordinal plus one} */
    @Override
    public int agreementCode() {
        return algorithm.ordinal() + 1;
    }
}
