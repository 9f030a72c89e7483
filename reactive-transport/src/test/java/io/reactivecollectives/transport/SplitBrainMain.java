package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.rendezvous.TcpStore;
import io.reactivecollectives.transport.rendezvous.TcpStoreOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One rank in its own JVM for {@link SplitBrainProcessesTest}:
 * {@code SplitBrainMain <storeHost> <storePort> <rank> <world> <doneFile>}. It meets the others
 * through the TCP store, runs small all-reduces (200 ms heartbeats x 5) until one fails, then
 * shrinks. Lines it prints, which the test reads:
 * <ul>
 *   <li>{@code RUNNING} after 20 all-reduces; {@code FAILED_AT <epochMillis> <message>} when one fails;</li>
 *   <li>{@code SHRUNK <newRank> <newSize> <groupId> OK} after a correct all-reduce in the new group,
 *   then all-reduces there until {@code doneFile} exists, and {@code SURVIVED <n> OK};</li>
 *   <li>{@code EXCLUDED <message>} when its shrink says it was left out (exit status 0), or
 *   {@code SHRINK_ERROR <error>} for any other failure (exit status 1).</li>
 * </ul>
 */
public final class SplitBrainMain {

    private SplitBrainMain() {
    }

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[2]);
        int world = Integer.parseInt(args[3]);
        Path done = Path.of(args[4]);
        TcpStore store = null;
        try {
            store = TcpStore.connect(TcpStoreOptions.of(args[0], Integer.parseInt(args[1]))
                    .withTimeout(Duration.ofSeconds(20))).block(Duration.ofSeconds(30));
            GroupOptions opts = GroupOptions.defaults().withGroupId("split-brain")
                    .withConnectTimeout(Duration.ofSeconds(10)).withTimeout(Duration.ofSeconds(30))
                    .withHeartbeat(Duration.ofMillis(200), 5);
            MeshProcessGroup g = MeshProcessGroup.connect(store, rank, world, opts).block(Duration.ofSeconds(30));
            Tensor t = Tensor.zeros(DType.FLOAT32, 256);
            try {
                for (int i = 1; ; i++) {
                    try {
                        g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(60));
                    } catch (RuntimeException e) {
                        System.out.println("FAILED_AT " + System.currentTimeMillis() + " " + e.getMessage());
                        break;
                    }
                    if (i == 20) {
                        System.out.println("RUNNING");
                    }
                }
            } finally {
                t.release();
            }
            ProcessGroup s;
            try {
                s = g.shrink().block(Duration.ofSeconds(60));
            } catch (PeerFailureException e) {
                System.out.println("EXCLUDED " + e.getMessage());
                System.exit(0);
                return;
            }
            checkedAllReduce(s, false);
            System.out.println("SHRUNK " + s.rank() + " " + s.size() + " " + ((MeshProcessGroup) s).groupId() + " OK");
            // the new group carries on while the stopped rank comes back, until the test says done (all
            // ranks stop after the same all-reduce: the one in which any of them saw the file)
            long end = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            int n = 0;
            while (!checkedAllReduce(s, Files.exists(done) || System.nanoTime() > end)) {
                n++;
                Thread.sleep(5);
            }
            System.out.println("SURVIVED " + n + " OK");
            s.close();
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("SHRINK_ERROR " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }

    /**
     * All-reduce of (newRank + 1) over 64 elements, every one of which must come back as
     * 1 + 2 + ... + size, and of a 65th: whether this rank wants to stop. Returns whether any rank did.
     */
    private static boolean checkedAllReduce(ProcessGroup s, boolean stop) {
        Tensor u = Tensor.empty(DType.FLOAT32, 65);
        try {
            for (int i = 0; i < 64; i++) {
                u.buffer().setFloatLE(i * 4, s.rank() + 1);
            }
            u.buffer().setFloatLE(64 * 4, stop ? 1 : 0);
            s.allReduce(u, ReduceOp.SUM).block(Duration.ofSeconds(30));
            float want = s.size() * (s.size() + 1) / 2f;
            for (int i = 0; i < 64; i++) {
                if (u.buffer().getFloatLE(i * 4) != want) {
                    throw new AssertionError("element " + i + " is " + u.buffer().getFloatLE(i * 4) + ", want " + want);
                }
            }
            return u.buffer().getFloatLE(64 * 4) > 0;
        } finally {
            u.release();
        }
    }
}
