package io.reactivecollectives.core;

/** The group was aborted (here or by a peer) or closed; in-flight and new collectives fail with this. */
public class GroupAbortedException extends CollectiveException {

    private static final long serialVersionUID = 1L;

    public GroupAbortedException(String op, int rank, long sequence, int peer, String detail) {
        super(op, rank, sequence, peer, detail, null);
    }
}
