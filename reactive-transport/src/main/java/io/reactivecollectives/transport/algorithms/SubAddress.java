package io.reactivecollectives.transport.algorithms;

/**
 * The sub-addresses inside one collective's sequence number, in one place: the tag (a coalesced
 * op's tensor, a stream's chunk), the step (an algorithm's step; a phase of a multi-phase
 * collective adds {@code phase * PHASE_STRIDE}; {@link #FINGERPRINT_STEP} is the DETAIL check's
 * exchange) and the chunk (a pipelined segment).
 */
public final class SubAddress {

    /** Steps available to one phase of a collective made of several algorithm runs. */
    public static final int PHASE_STRIDE = 1 << 20;

    /** The step the DETAIL fingerprint exchange travels under (algorithms use steps from 0). */
    public static final int FINGERPRINT_STEP = -1;

    private SubAddress() {
    }

    /** {@code step 3}, {@code phase 2 step 3}, or {@code fingerprint exchange}. */
    public static String describeStep(int step) {
        if (step == FINGERPRINT_STEP) {
            return "fingerprint exchange";
        }
        if (step >= PHASE_STRIDE) {
            return "phase " + step / PHASE_STRIDE + " step " + step % PHASE_STRIDE;
        }
        return "step " + step;
    }
}
