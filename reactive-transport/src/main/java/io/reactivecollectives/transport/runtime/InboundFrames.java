package io.reactivecollectives.transport.runtime;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.reactivecollectives.core.CollectiveMismatchException;
import io.reactivecollectives.transport.failure.AbortProtocol;
import io.reactivecollectives.transport.failure.PeerFailures;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.GoodbyeFrameCodec;
import io.reactivecollectives.transport.frame.GroupAbortFrameCodec;
import io.reactivecollectives.transport.frame.P2PFrameCodec;
import io.reactivecollectives.transport.frame.PeerSilentFrameCodec;
import io.reactivecollectives.transport.group.Delivery;
import io.reactivecollectives.transport.group.ReceiptSender;
import io.reactivecollectives.transport.group.RemoteAbortException;
import io.reactivecollectives.transport.mesh.FrameListener;
import io.reactivecollectives.transport.mesh.Connections;
import io.reactivecollectives.transport.mesh.PeerProtocolException;
import io.reactivecollectives.transport.mesh.PeerSilentException;
import io.reactivecollectives.transport.wire.LentBuffer;

/**
 * The router of inbound frames (runs on the connections' event loops): DATA to the collective's
 * mailbox, ABORT to the collective it names, P2P fragments to the point-to-point mailbox,
 * GROUP_ABORT and closed connections to the peer-failure record and every in-flight operation.
 */
public final class InboundFrames implements FrameListener {

    private final GroupRuntime runtime;
    private final AbortProtocol aborts;
    private final ReceiptSender receipts;   // made once, not per frame

    public InboundFrames(GroupRuntime runtime, AbortProtocol aborts) {
        this.runtime = runtime;
        this.aborts = aborts;
        this.receipts = aborts::acknowledge;
    }

    @Override
    public void onFrame(int peer, ByteBuf frame) {
        onFrame(peer, FrameCodec.type(frame), frame);
    }

    /** Routes {@code frame} by {@code type}, which the link's checks already decoded (none is decoded again). */
    @Override
    public void onFrame(int peer, FrameType type, ByteBuf frame) {
        switch (type) {
            case DATA:
                onData(peer, frame);
                break;
            case ABORT:
                try {
                    aborts.noteReport(peer, frame, runtime.peerFailures());
                    runtime.mailbox().abortFromPeer(FrameCodec.sequence(frame), aborts.errorOf(peer, frame));
                } finally {
                    frame.release();
                }
                break;
            case P2P:
                runtime.p2p().deliver(peer, P2PFrameCodec.tag(frame), LentBuffer.keep(frame));  // queued past this call
                break;
            case GROUP_ABORT:
                onGroupAbort(peer, frame);
                break;
            case GOODBYE:
                try {
                    onGoodbye(peer, GoodbyeFrameCodec.finishedBelow(frame));
                } finally {
                    frame.release();
                }
                break;
            case PEER_SILENT:
                onPeerSilent(peer, frame);
                break;
            case ACK:
                try {
                    runtime.mailbox().ack(FrameCodec.sequence(frame), peer);
                } finally {
                    frame.release();
                }
                break;
            default:
                ReferenceCountUtil.release(frame);
                protocolViolation(peer, "unexpected " + type + " frame");
        }
    }

    private void onData(int peer, ByteBuf frame) {
        long seq = FrameCodec.sequence(frame);
        runtime.peerFailures().dataFrom(peer, seq);
        long word = FrameCodec.agreementWord(frame);
        long count = FrameCodec.agreementCount(frame);
        Delivery d = runtime.mailbox().deliver(seq, FrameCodec.tag(frame), FrameCodec.step(frame),
                FrameCodec.chunk(frame), peer, word, count, FrameCodec.payload(frame), receipts);
        if (d.violation() != null) {
            protocolViolation(peer, d.violation());
        } else if (d.disagrees()) {
            // fail the local collective naming both sides, and tell every peer (theirs fail as a mismatch too)
            CollectiveMismatchException[] made = new CollectiveMismatchException[1];
            runtime.mailbox().abortFromPeer(seq, b -> made[0] = d.chunk() != null
                    ? Agreement.chunkMismatch(b, runtime.rank(), d.chunk())
                    : Agreement.mismatch(b, runtime.rank(), peer, word, count));
            if (made[0] != null) {
                aborts.tellPeers(seq, made[0]);
            }
        }
    }

    private void onGroupAbort(int peer, ByteBuf frame) {
        String reason;
        try {
            reason = GroupAbortFrameCodec.reason(frame);
        } finally {
            frame.release();
        }
        int rank = runtime.rank();
        String dead = runtime.peerFailures().markDead(peer, "peer " + peer + " aborted the group (" + reason + ")", true).why();
        runtime.mailbox().failAll(b -> new RemoteAbortException(b.opName(), rank, b.sequence(), peer, dead));
        runtime.p2p().failSource(peer, dead);
    }

    /**
     * {@code reporter}, which watches {@code silent}'s heartbeats, found it silent: this rank closes its
     * own connection to it with that finding, the one path every closed connection takes.
     */
    private void onPeerSilent(int reporter, ByteBuf frame) {
        int silent;
        String finding;
        try {
            silent = PeerSilentFrameCodec.peer(frame);
            finding = PeerSilentFrameCodec.finding(frame);
        } finally {
            frame.release();
        }
        Connections data = runtime.mesh();
        if (silent < 0 || silent >= runtime.size() || silent == runtime.rank() || silent == reporter) {
            protocolViolation(reporter, "PEER_SILENT names rank " + silent);
        } else if (data != null) {
            boolean news = runtime.peerFailures().deathOf(silent) == null;
            data.closeLink(silent, new PeerSilentException(silent, finding, reporter));
            if (news && data.connectsOnDemand()) {
                aborts.tellPeerSilent(silent, finding);   // a partial mesh: the notice goes on from rank to rank
            }
        }
    }

    /** {@code peer} leaves in order: what it finished is left alone, what it did not fails now. */
    private void onGoodbye(int peer, long finishedBelow) {
        PeerFailures.Death death = runtime.peerFailures().markDeparted(peer, finishedBelow);
        failFor(peer, death, null);
    }

    private void protocolViolation(int peer, String what) {
        runtime.peerFailures().markDead(peer, "peer " + peer + " broke the protocol: " + what, false);
        Connections m = runtime.mesh();
        if (m != null && m.link(peer) != null) {
            m.closeLink(peer, new PeerProtocolException("rank " + peer + ": " + what, null));
        }
    }

    @Override
    public void onClosed(int peer, Throwable cause) {
        if (runtime.isClosed()) {
            return;
        }
        // the mesh says what it observed (silence, an orderly close, a reset, a protocol error) in a typed cause
        String said = cause == null ? null : cause.getMessage();
        String detail = said != null && said.startsWith("peer " + peer + " ") ? said
                : "peer " + peer + " closed the connection" + (said == null ? "" : " (" + said + ")");
        failFor(peer, runtime.peerFailures().markDead(peer, detail, false), cause);
    }

    /** Fails what {@code peer}'s recorded death stops: every running collective, or those it did not finish. */
    private void failFor(int peer, PeerFailures.Death death, Throwable cause) {
        int rank = runtime.rank();
        String why = death.why();
        // the peer's GROUP_ABORT, handled on another connection's loop, may not have failed the
        // in-flight collectives yet: they fail as that abort, whichever handler gets there first
        runtime.mailbox().failFrom(death.finishedBelow() < 0 ? Long.MIN_VALUE : death.finishedBelow(),
                b -> death.groupAbort()
                        ? new RemoteAbortException(b.opName(), rank, b.sequence(), peer, why)
                        : runtime.peerFailures().failure(b.opName(), b.sequence(), peer, cause));
        runtime.p2p().failSource(peer, why);
    }
}
