package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.CollectiveException;

/** A peer aborted the collective (it failed or was cancelled there); this rank does not echo the abort. */
public final class RemoteAbortException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    public RemoteAbortException(String op, int rank, long sequence, int peer, String detail) {
        super(op, rank, sequence, peer, detail, null);
    }
}
