package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.CollectiveMismatchException;

/**
 * A mismatch another rank found in this collective (the ranks disagree on op, dtype, size, root or
 * reduce op, or a rank's arguments were refused): raised on the ranks that learn of it from that
 * rank's notice.
 */
public final class RemoteMismatchException extends CollectiveMismatchException {

    private static final long serialVersionUID = 1L;

    public RemoteMismatchException(String op, int rank, long sequence, int reporter, String detail) {
        super(op, rank, sequence, reporter, detail);
    }
}
