package io.reactivecollectives.transport.mesh;

import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.scheduler.NonBlocking;

import java.util.concurrent.TimeUnit;

/**
 * The event loops that carry the collectives' connections (the store keeps Reactor Netty's
 * default ones): native epoll loops where epoll loads, else NIO ({@link MeshChannels}), that poll
 * for {@link #SPIN_MICROS} microseconds after their last I/O before they block ({@link SpinThenSelectStrategy}), which takes a thread wake-up off the latency
 * of every small collective in a chain.
 *
 * <p>Shared by every group of the JVM, created on first use, daemon threads named
 * {@code rc-io-N} (Netty {@code FastThreadLocalThread}s, so BlockHound treats them as non-blocking).
 * Their threads are marked {@link NonBlocking}, as Reactor's own are: code chained after a
 * collective runs on them by default, and a {@code block()} there fails at once with Reactor's
 * message instead of hanging the loop that would complete it.
 *
 * <p>{@link #liveness()} is a second group of one thread ({@code rc-liveness}, plain {@code select},
 * no spinning) for the {@link MeshRole#LIVENESS} meshes' heartbeats, which no user code and no data
 * ever delays.
 *
 * <p>Settings, read once: system property {@code rc.transport.spinMicros} (the most a loop polls,
 * default 50; 0 blocks in {@code select} at once, as plain Netty does), {@code rc.transport.spinAdaptive}
 * (default true: the budget halves after polling in vain and doubles after polling in time) and {@code rc.transport.ioThreads} (default
 * {@code max(4, available processors)}, as Reactor Netty's own default).
 */
public final class MeshEventLoops {

    /** Microseconds an event loop keeps polling after its last activity. */
    public static final long SPIN_MICROS = Math.max(0, TransportSettings.SPIN_MICROS.get());

    /** Whether the polling budget adapts to whether polling pays off ({@link SpinThenSelectStrategy}). */
    public static final boolean SPIN_ADAPTIVE = TransportSettings.SPIN_ADAPTIVE.get();

    /** Threads of the shared group. */
    public static final int THREADS = Math.max(1, TransportSettings.IO_THREADS.get());

    /** Whether a rank's connections share one loop of the group ({@link TransportSettings#HOME_LOOP}). */
    static final boolean HOME_LOOP = TransportSettings.HOME_LOOP.get();

    private MeshEventLoops() {
    }

    private static final class Holder {
        static final EventLoopGroup GROUP = create();

        private static EventLoopGroup create() {
            long spinNanos = TimeUnit.MICROSECONDS.toNanos(SPIN_MICROS);
            SelectStrategyFactory strategies = spinNanos == 0 ? DefaultSelectStrategyFactory.INSTANCE
                    : () -> new SpinThenSelectStrategy(spinNanos, SPIN_ADAPTIVE);
            return new MultiThreadIoEventLoopGroup(THREADS, new LoopThreads("rc-io"),
                    MeshChannels.ioHandlers(strategies));
        }
    }

    private static final class LivenessHolder {
        static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1, new LoopThreads("rc-liveness"),
                MeshChannels.ioHandlers(DefaultSelectStrategyFactory.INSTANCE));
    }

    /** The shared group (created on first use; its threads are daemons and live as long as the JVM). */
    public static EventLoopGroup get() {
        return Holder.GROUP;
    }

    /** The one-thread group of the heartbeat connections (created on first use, a daemon). */
    public static EventLoopGroup liveness() {
        return LivenessHolder.GROUP;
    }

    /**
     * The loops that run one rank's connections: the heartbeat loop for a {@link MeshRole#LIVENESS}
     * mesh; else one loop of the shared group, taken in turn by the meshes of the JVM (the rank's
     * home loop), when {@link TransportSettings#HOME_LOOP} is on and the rank has one connection per
     * peer; else the whole shared group, whose loops the connections take in turn.
     *
     * <p>On its home loop a rank receives a frame from one peer, reduces it and sends what that lets
     * it send to the next on one thread: a ring's step hands nothing to another loop (no task queued,
     * no loop woken), where connections spread over the loops hand each segment from the receiving
     * loop to the sending one. Stripes ({@code connectionsPerPeer} above 1) are for links one thread
     * cannot fill, so they keep the whole group.
     *
     * @param role               the mesh's role
     * @param connectionsPerPeer the connections the rank opens to each peer
     * @return a single loop or a group of loops
     */
    static EventLoopGroup forMesh(MeshRole role, int connectionsPerPeer) {
        if (role == MeshRole.LIVENESS) {
            return liveness();
        }
        return HOME_LOOP && connectionsPerPeer == 1 ? get().next() : get();
    }

    /** Daemon Netty threads that Reactor recognises as non-blocking ({@code block()} there fails fast). */
    private static final class LoopThreads extends DefaultThreadFactory {

        LoopThreads(String prefix) {
            super(prefix, true);
        }

        @Override
        protected Thread newThread(Runnable r, String name) {
            return new LoopThread(threadGroup, r, name);
        }
    }

    private static final class LoopThread extends FastThreadLocalThread implements NonBlocking {

        LoopThread(ThreadGroup group, Runnable r, String name) {
            super(group, r, name);
        }
    }
}
