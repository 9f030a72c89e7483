package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import io.reactivecollectives.transport.frame.MalformedFrameException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a mesh tells its own frames from a carried subgroup's ({@link GroupRouter}): by the header's
 * group id, with the sender renumbered as the subgroup's rank; the end of a connection reaches the
 * group and every subgroup the peer is in; a retired subgroup's late frames are dropped, a group id
 * never carried stays a protocol error, and an id cannot be carried twice.
 */
class GroupRouterTest {

    private static final int OWN = "parent".hashCode();
    private static final int SUB = "parent/0".hashCode();

    /** What a listener heard: "frame peer seq" or "closed peer". */
    private static final class Heard implements FrameListener {
        final List<String> events = new ArrayList<>();

        @Override
        public void onFrame(int peer, ByteBuf frame) {
            events.add("frame " + peer + " " + FrameCodec.sequence(frame));
            frame.release();
        }

        @Override
        public void onClosed(int peer, Throwable cause) {
            events.add("closed " + peer);
        }
    }

    private static ByteBuf frame(int group, long seq, int source) {
        ByteBuf f = FrameCodec.encodeHeader(UnpooledByteBufAllocator.DEFAULT, FrameType.DATA, group, seq, 0, 0, 0, source, 0, 0);
        f.skipBytes(FrameCodec.LENGTH_FIELD);   // as the decoder hands it on
        return f;
    }

    @Test
    void framesGoByGroupIdWithTheSubgroupsRanksAndEndsReachEveryGroupThePeerIsIn() {
        Heard parent = new Heard();
        Heard sub = new Heard();
        GroupRouter router = new GroupRouter(OWN, 6, parent);
        assertTrue(router.add(SUB, new int[] {1, 3, 5}, sub, null));
        assertFalse(router.add(SUB, new int[] {0, 2}, new Heard(), null), "an id is carried once");
        assertFalse(router.add(OWN, new int[] {0, 2}, new Heard(), null), "the mesh's own id");

        router.onFrame(3, frame(OWN, 7, 3));
        router.onFrame(3, frame(SUB, 8, 3));
        router.onFrame(5, frame(SUB, 9, 5));
        ByteBuf stray = frame(SUB, 10, 2);
        router.onFrame(2, stray);   // rank 2 is not a member: dropped
        assertEquals(0, stray.refCnt(), "released");
        router.onClosed(3, null);
        router.onClosed(0, null);
        assertEquals(List.of("frame 3 7", "closed 3", "closed 0"), parent.events);
        assertEquals(List.of("frame 1 8", "frame 2 9", "closed 1"), sub.events, "members renumbered: 3 -> 1, 5 -> 2");

        assertTrue(router.carries(OWN) && router.carries(SUB));
        router.retire(SUB);
        ByteBuf late = frame(SUB, 11, 5);
        router.onFrame(5, late);
        assertEquals(0, late.refCnt(), "a retired subgroup's late frame is released");
        assertEquals(3, sub.events.size(), "nothing more delivered to it");
        assertTrue(router.carries(SUB), "still recognised: its members' late frames are no protocol error");
        assertFalse(router.add(SUB, new int[] {1, 3}, new Heard(), null), "a retired id is not reused");

        int never = "parent/9".hashCode();
        assertFalse(router.carries(never));
        ByteBuf foreign = frame(never, 1, 3);
        try {
            assertThrows(MalformedFrameException.class, () -> FrameCodec.validateEstablished(foreign, OWN, router::carries, 3));
            ByteBuf carried = frame(SUB, 1, 3);
            assertEquals(FrameType.DATA, FrameCodec.validateEstablished(carried, OWN, router::carries, 3));
            carried.release();
        } finally {
            foreign.release();
        }
    }
}
