package io.reactivecollectives.transport.failure;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.transport.frame.AbortFrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.GroupAbortFrameCodec;
import io.reactivecollectives.transport.frame.PeerSilentFrameCodec;
import io.reactivecollectives.transport.group.CollectiveBox;
import io.reactivecollectives.transport.group.Mailbox;
import io.reactivecollectives.transport.group.RemoteAbortException;
import io.reactivecollectives.transport.group.RemotePeerFailureException;
import io.reactivecollectives.transport.group.RemoteTimeoutException;
import io.reactivecollectives.transport.mesh.Connections;
import io.reactivecollectives.transport.mesh.PeerLink;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How ranks tell each other that a collective (ABORT) or the whole group (GROUP_ABORT) failed, and
 * what a rank makes of such a notice: the sender's kind of failure travels as a typed
 * {@link AbortFrameCodec.Kind}, so the receiver raises the matching exception (a peer failure
 * naming the failed peer, a group-wide timeout naming who waited for whom, a mismatch, or a plain
 * remote abort) without parsing message text.
 */
public final class AbortProtocol {

    private final int rank;
    private final int size;
    private final Supplier<Connections> mesh;

    public AbortProtocol(int rank, int size, Supplier<Connections> mesh) {
        this.rank = rank;
        this.size = size;
        this.mesh = mesh;
    }

    /** Whether {@code cause} came from a peer's notice (nothing to tell the others again). */
    public static boolean isRemote(Throwable cause) {
        return cause instanceof RemoteAbortException || cause instanceof RemotePeerFailureException
                || cause instanceof RemoteTimeoutException || cause instanceof RemoteMismatchException;
    }

    /** Tells every peer that collective {@code seq} failed here with {@code cause} (null: cancelled). */
    public void tellPeers(long seq, Throwable cause) {
        Connections m = mesh.get();
        if (m == null || size == 1) {
            return;
        }
        AbortFrameCodec.Kind kind = AbortFrameCodec.Kind.FAILED;
        int peer = -1;
        String reason = cause == null ? "cancelled on rank " + rank : cause.getMessage();
        if (cause instanceof PeerFailureException pf && pf.peer() >= 0 && pf.peer() < size && pf.peer() != rank) {
            kind = AbortFrameCodec.Kind.PEER_FAILED;
            peer = pf.peer();
        } else if (cause instanceof CollectiveTimeoutException te) {
            kind = AbortFrameCodec.Kind.TIMED_OUT;
            peer = te.peer() >= 0 && te.peer() < size ? te.peer() : -1;
        } else if (cause instanceof CollectiveMismatchException || cause instanceof IllegalArgumentException) {
            kind = AbortFrameCodec.Kind.MISMATCH;
        }
        if (kind != AbortFrameCodec.Kind.FAILED && cause instanceof CollectiveException ce && ce.detail() != null) {
            reason = ce.detail();
        }
        int tag = AbortFrameCodec.tagOf(kind);
        int step = AbortFrameCodec.stepOf(peer);
        String why = reason;
        forEachOther(m, -1, l -> l.sendAndForget(FrameType.ABORT, seq, tag, step, 0, AbortFrameCodec.reasonPayload(why)));
    }

    /** Runs {@code send} for the active link to every peer but this rank and {@code except} (-1: none). */
    private void forEachOther(Connections m, int except, java.util.function.Consumer<PeerLink> send) {
        for (int p = 0; m != null && p < size; p++) {
            PeerLink l = p == rank || p == except ? null : m.link(p);
            if (l != null && l.isActive()) {
                send.accept(l);
            }
        }
    }

    /**
     * Tells every peer but {@code silent} that this rank found {@code silent} silent (a heartbeat
     * ring, where the others do not watch it): each closes its own connection to it with
     * {@code finding}.
     */
    public void tellPeerSilent(int silent, String finding) {
        forEachOther(mesh.get(), silent, l -> l.sendAndForget(FrameType.PEER_SILENT, -1, 0,
                PeerSilentFrameCodec.stepOf(silent), 0, PeerSilentFrameCodec.findingPayload(finding)));
    }

    /** Sends {@code peer} a receipt (ACK) for its frames of collective {@code seq}. */
    public void acknowledge(int peer, long seq) {
        Connections m = mesh.get();
        PeerLink l = m == null || peer == rank ? null : m.link(peer);
        if (l != null && l.isActive()) {
            l.sendAndForget(FrameType.ACK, seq, 0, 0, 0, io.netty.buffer.Unpooled.EMPTY_BUFFER);
        }
    }

    /**
     * Tells {@code link}'s peer that this rank leaves the group in order, having finished every
     * collective below {@code finishedBelow}; completes once written (after every earlier write).
     */
    public Mono<Void> goodbye(PeerLink link, long finishedBelow) {
        return link.send(FrameType.GOODBYE, finishedBelow, 0, 0, 0, io.netty.buffer.Unpooled.EMPTY_BUFFER);
    }

    /** Sends GROUP_ABORT to every peer; completes once written, or after one second. */
    public Mono<Void> tellGroupAborted(String why) {
        List<Mono<Void>> notices = new ArrayList<>();
        forEachOther(mesh.get(), -1, l -> notices.add(l.send(FrameType.GROUP_ABORT, -1, 0, 0, 0,
                GroupAbortFrameCodec.reasonPayload(why)).onErrorResume(e -> Mono.empty())));
        return Mono.when(notices).timeout(Duration.ofSeconds(1), Mono.empty());
    }

    /**
     * Keeps in {@code failures} what {@code sender}'s ABORT frame says of another peer (a PEER_FAILED
     * notice names the peer it found dead), whether or not the collective still runs here. Does not
     * release {@code frame}.
     */
    public void noteReport(int sender, ByteBuf frame, PeerFailures failures) {
        if (AbortFrameCodec.kind(frame) == AbortFrameCodec.Kind.PEER_FAILED) {
            failures.reported(sender, AbortFrameCodec.peer(frame), AbortFrameCodec.reason(frame));
        }
    }

    /**
     * The error a peer's ABORT frame means for this rank's copy of the collective, as a factory of
     * the box (whose op name and wait state it reads). Does not release {@code frame}.
     */
    public Function<CollectiveBox, CollectiveException> errorOf(int sender, ByteBuf frame) {
        long seq = AbortFrameCodec.sequence(frame);
        AbortFrameCodec.Kind kind = AbortFrameCodec.kind(frame);
        int named = AbortFrameCodec.peer(frame);
        String reason = AbortFrameCodec.reason(frame);
        switch (kind) {
            case PEER_FAILED:
                if (named >= 0 && named < size && named != rank && named != sender) {
                    return b -> new RemotePeerFailureException(b.opName(), rank, seq, named,
                            reason + " (reported by rank " + sender + ")");
                }
                break;
            case TIMED_OUT: {
                int theirs = named >= 0 && named < size && named != rank ? named : CollectiveException.NO_PEER;
                return b -> {
                    int mine = b.waitingOn();
                    return new RemoteTimeoutException(b.opName(), rank, seq, mine >= 0 ? mine : theirs,
                            b.elapsed(), "timed out group-wide: rank " + sender + " " + reason
                            + (mine >= 0 ? "; this rank was waiting for rank " + mine : ""));
                };
            }
            case MISMATCH:
                return b -> new RemoteMismatchException(b.opName(), rank, seq, sender,
                        reason + " (reported by rank " + sender + ")");
            default:
                break;
        }
        return b -> new RemoteAbortException(b.opName(), rank, seq, sender, "aborted by rank " + sender + ": " + reason);
    }
}
