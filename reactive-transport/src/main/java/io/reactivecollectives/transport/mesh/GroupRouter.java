package io.reactivecollectives.transport.mesh;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.transport.frame.FrameCodec;
import io.reactivecollectives.transport.frame.FrameType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The listener a mesh's links deliver to: a frame of the mesh's own group goes to its listener as
 * before, a frame of a subgroup carried over the mesh ({@link CarriedGroup}) to that subgroup's
 * listener, with the sender's rank in the subgroup; the end of a connection goes to the group and to
 * every carried subgroup the peer is a member of. The group id of each frame was checked by the
 * link against {@link #carries} before it gets here.
 *
 * <p>A subgroup closed here is retired, not forgotten: its members' frames still on their way are
 * dropped quietly, while a group id never carried remains a protocol error.
 */
final class GroupRouter implements FrameListener {

    private static final Logger log = LoggerFactory.getLogger(GroupRouter.class);

    /** One carried subgroup: the subgroup's rank of each rank of the mesh (-1: not a member), its listener. */
    private record Carried(int[] subRankOf, FrameListener listener, CarriedGroup group) {
    }

    private final int own;
    private final FrameListener group;
    private final int world;
    private final ConcurrentHashMap<Integer, Carried> carried = new ConcurrentHashMap<>();
    private final Set<Integer> retired = ConcurrentHashMap.newKeySet();

    GroupRouter(int own, int world, FrameListener group) {
        this.own = own;
        this.world = world;
        this.group = group;
    }

    /**
     * Whether frames with group id {@code groupHash} belong on this mesh.
     *
     * @param groupHash a frame's group id
     * @return true for the mesh's own group and for every subgroup carried or retired here
     */
    @Override
    public boolean carries(int groupHash) {
        return groupHash == own || carried.containsKey(groupHash) || retired.contains(groupHash);
    }

    /**
     * Delivers the frames of {@code groupHash} to {@code listener} from now on.
     *
     * @param groupHash the subgroup's id hash
     * @param members   its ranks, as ranks of the mesh
     * @param listener  its listener
     * @param group     its connections, told when the mesh's link to a member changes (null: none)
     * @return false when the id is taken (the mesh's own, or carried or retired here)
     */
    boolean add(int groupHash, int[] members, FrameListener listener, CarriedGroup group) {
        int[] subRankOf = new int[world];
        Arrays.fill(subRankOf, -1);
        for (int i = 0; i < members.length; i++) {
            subRankOf[members[i]] = i;
        }
        if (groupHash == own || retired.contains(groupHash)) {
            return false;
        }
        return carried.putIfAbsent(groupHash, new Carried(subRankOf, listener, group)) == null;
    }

    /** Stops delivering the frames of {@code groupHash}; those still arriving are dropped. */
    void retire(int groupHash) {
        retired.add(groupHash);
        carried.remove(groupHash);
    }

    /** The mesh's link to {@code peer} came or went: the carried subgroups it is a member of follow. */
    void linkChanged(int peer) {
        for (Carried c : carried.values()) {
            int sub = c.subRankOf[peer];
            if (sub >= 0 && c.group != null) {
                c.group.meshLinkChanged(sub);
            }
        }
    }

    @Override
    public void onFrame(int peer, ByteBuf frame) {
        onFrame(peer, FrameCodec.type(frame), frame);
    }

    @Override
    public void onFrame(int peer, FrameType type, ByteBuf frame) {
        int g = FrameCodec.group(frame);
        if (g == own) {
            group.onFrame(peer, type, frame);
            return;
        }
        Carried c = carried.get(g);
        int sub = c == null ? -1 : c.subRankOf[peer];
        if (sub < 0) {
            frame.release();
            if (c != null) {
                log.warn("dropped a {} frame of subgroup id {} from rank {}, which is not one of its members", type, g, peer);
            }
            return;   // else a subgroup closed here: what its members still send is dropped
        }
        c.listener.onFrame(sub, type, frame);
    }

    @Override
    public void onClosed(int peer, Throwable cause) {
        try {
            group.onClosed(peer, cause);
        } finally {
            for (Carried c : carried.values()) {
                int sub = c.subRankOf[peer];
                if (sub >= 0) {
                    c.listener.onClosed(sub, cause);
                }
            }
        }
    }
}
