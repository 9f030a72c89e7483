package io.reactivecollectives.transport.mesh;

/**
 * What a mesh's connections carry, and so whether they heartbeat and on which event loops they run.
 * A group runs two meshes: {@link #DATA} for its frames and {@link #LIVENESS} for heartbeats alone,
 * so that code a user chains after a collective, which runs on the data event loops by default,
 * can never make the peers think this rank died.
 */
public enum MeshRole {

    /** Frames and heartbeats on the same connections, on the data event loops (a mesh used alone). */
    COMBINED,

    /** Frames only, on the data event loops ({@code rc-io-N}); a {@link #LIVENESS} mesh beside it watches the peers. */
    DATA,

    /**
     * Heartbeats only, on one event loop of their own ({@code rc-liveness}) that runs no user code
     * and no data: a peer is declared unresponsive only when its process, or the network, is silent.
     */
    LIVENESS;

    /** Whether this mesh's connections send heartbeats and judge the peers' silence. */
    public boolean heartbeats() {
        return this != DATA;
    }
}
