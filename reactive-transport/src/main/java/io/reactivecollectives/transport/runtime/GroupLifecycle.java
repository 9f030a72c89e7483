package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.GroupAbortedException;
import io.reactivecollectives.transport.failure.AbortProtocol;
import io.reactivecollectives.transport.mesh.Mesh;
import reactor.core.publisher.Mono;

/** How one rank's group ends: {@link #abort} (tell the peers, then close) and {@link #close}. */
public final class GroupLifecycle {

    /** Longest a closing rank waits for its queued writes and GOODBYE to go out on a connection. */
    private static final java.time.Duration GOODBYE_GRACE = java.time.Duration.ofSeconds(2);

    private final GroupRuntime runtime;
    private final AbortProtocol aborts;

    public GroupLifecycle(GroupRuntime runtime, AbortProtocol aborts) {
        this.runtime = runtime;
        this.aborts = aborts;
    }

    /**
     * Fails every in-flight operation here with {@link GroupAbortedException}, refuses new work,
     * sends GROUP_ABORT to every peer, then runs {@code close} (at most one second later).
     */
    public Mono<Void> abort(Runnable close) {
        return Mono.defer(() -> {
            if (runtime.isClosed()) {
                return Mono.empty();
            }
            int rank = runtime.rank();
            String why = "abort() called on rank " + rank;
            runtime.markAborted(why);
            runtime.mailbox().failAll(b -> runtime.endedHere(b.opName(), b.sequence()));
            runtime.p2p().close(runtime.endedHere("recv", -1));
            return aborts.tellGroupAborted(why).doFinally(s -> close.run());
        });
    }

    /** Fails in-flight operations with {@link GroupAbortedException} and closes the connections; false if already closed. */
    public boolean close() {
        if (!runtime.markClosed()) {
            return false;
        }
        long finishedBelow = runtime.mailbox().lowestRunning();
        runtime.mailbox().failAll(b -> runtime.endedHere(b.opName(), b.sequence()));
        runtime.p2p().close(runtime.endedHere("recv", -1));
        runtime.observer().metrics().close();
        io.reactivecollectives.transport.mesh.Connections m = runtime.mesh();
        if (m != null && runtime.abortedWhy() == null) {
            // peers still running a collective this rank finished are not failed by its leaving: GOODBYE
            // says which it finished, and each connection closes once it and every write before it went out
            m.closeGracefully(link -> aborts.goodbye(link, finishedBelow), GOODBYE_GRACE);
        } else if (m != null) {
            m.close();
        }
        Mesh heartbeats = runtime.liveness();
        if (heartbeats != null) {
            heartbeats.close();  // a peer seeing this end while this rank's data still drains only logs it
        }
        runtime.mailbox().clear();
        return true;
    }
}
