package io.reactivecollectives.core;

/**
 * An object call's errors as the call's own: a round's tensor collective that fails (a timeout, a
 * peer lost, an abort) fails the object call under the object call's name and number, with the
 * round's op and sequence number in the text, so that the error names what the caller called and
 * the flight recorder's entry can still be found. The kind is kept where users catch it: a timeout
 * stays a {@link CollectiveTimeoutException}, a peer lost a {@link PeerFailureException}, a
 * mismatch a {@link CollectiveMismatchException}, the group's end a {@link GroupAbortedException};
 * the round's error is the cause.
 */
final class ObjectRoundErrors {

    private ObjectRoundErrors() {
    }

    /**
     * {@code e} as the error of object call {@code op[sequence]} on {@code rank}; {@code e} itself
     * when it is not a round's (another kind of error, or already the call's).
     */
    static Throwable named(String op, int rank, long sequence, Throwable e) {
        if (!(e instanceof CollectiveException c) || op.equals(c.op())) {
            return e;
        }
        String detail = "its round " + c.op() + (c.sequence() >= 0 ? "[seq=" + c.sequence() + "]" : "") + " failed: " + c.detail();
        if (c instanceof CollectiveTimeoutException t) {
            return new CollectiveTimeoutException(op, rank, sequence, t.peer(), t.elapsed(), detail, c);
        } else if (c instanceof CollectiveMismatchException) {
            return new CollectiveMismatchException(op, rank, sequence, c.peer(), detail, c);
        } else if (c instanceof GroupAbortedException) {
            return new GroupAbortedException(op, rank, sequence, c.peer(), detail, c);
        } else if (c instanceof PeerFailureException) {
            return new PeerFailureException(op, rank, sequence, c.peer(), detail, c);
        }
        return new CollectiveException(op, rank, sequence, c.peer(), detail, c);
    }
}
