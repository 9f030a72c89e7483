package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.FileStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One rank in its own JVM for {@link SilentPeerProcessesTest}: {@code SilentPeerMain <storeFile>
 * <rank> <world> <elements>}. Runs float32 all-reduces of {@code elements} elements with 100 ms x 5
 * heartbeats until one fails; prints {@code READY}, {@code STARTED <n>} before the n-th all-reduce,
 * and {@code FAILED_AT <epochMillis> <message>} when one fails, then exits 0.
 */
public final class SilentPeerMain {

    public static void main(String[] args) {
        Path storeFile = Path.of(args[0]);
        int rank = Integer.parseInt(args[1]);
        int world = Integer.parseInt(args[2]);
        int n = Integer.parseInt(args[3]);
        try (Store store = new FileStore(storeFile, Duration.ofSeconds(30))) {
            GroupOptions opts = GroupOptions.defaults().withGroupId("silent-peer")
                    .withConnectTimeout(Duration.ofSeconds(30)).withTimeout(Duration.ofSeconds(60))
                    .withHeartbeat(Duration.ofMillis(100), 5);
            MeshProcessGroup g = MeshProcessGroup.connect(store, rank, world, opts).block(Duration.ofSeconds(40));
            System.out.println("READY");
            Tensor t = Tensor.empty(DType.FLOAT32, n);
            try {
                for (int i = 1; ; i++) {
                    System.out.println("STARTED " + i);
                    try {
                        g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(120));
                    } catch (RuntimeException e) {
                        System.out.println("FAILED_AT " + System.currentTimeMillis() + " " + e.getMessage());
                        break;
                    }
                }
            } finally {
                t.release();
            }
            g.close();
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("RANK " + rank + " ERROR: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }
}
