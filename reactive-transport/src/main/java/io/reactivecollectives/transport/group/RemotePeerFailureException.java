package io.reactivecollectives.transport.group;

import io.reactivecollectives.core.PeerFailureException;

/**
 * Another rank saw a peer fail during this collective and said so (ABORT frame naming the failed
 * peer) before this rank noticed by itself: a {@link PeerFailureException} naming the failed peer,
 * with the reporting rank in the message. Not echoed to the other ranks.
 */
public final class RemotePeerFailureException extends PeerFailureException {

    private static final long serialVersionUID = 1L;

    public RemotePeerFailureException(String op, int rank, long sequence, int failedPeer, String detail) {
        super(op, rank, sequence, failedPeer, detail, null);
    }
}
