package io.reactivecollectives.transport;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.FileStore;
import io.reactivecollectives.core.rendezvous.Store;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One rank in its own JVM, for {@link ProcessesTest}: {@code RankMain <storeFile> <rank> <world>}.
 * Joins the group through a {@link FileStore} shared by the processes, runs an all-reduce (SUM and MAX, 1001 float32 elements,
 * plus 3 MB for the ring) and a broadcast from rank 1, checks the results against values it
 * computes itself, prints {@code RANK <r> OK via <shm|unix/epoll|tcp/nio|...>} and exits 0 (1 with the reason otherwise).
 */
public final class RankMain {

    public static void main(String[] args) {
        Path storeFile = Path.of(args[0]);
        int rank = Integer.parseInt(args[1]);
        int world = Integer.parseInt(args[2]);
        try (Store store = new FileStore(storeFile, Duration.ofSeconds(30))) {
            MeshProcessGroup g = MeshProcessGroup.connect(store, rank, world,
                    GroupOptions.defaults().withGroupId("processes").withConnectTimeout(Duration.ofSeconds(30))
                            .withTimeout(Duration.ofSeconds(30))).block(Duration.ofSeconds(40));
            try {
                for (int n : new int[] {1001, 800_000}) {
                    Tensor t = Tensor.empty(DType.FLOAT32, n);
                    Tensor m = Tensor.empty(DType.FLOAT32, n);
                    try {
                        for (int i = 0; i < n; i++) {
                            t.buffer().setFloatLE(i * 4, (i % 13) + rank);
                            m.buffer().setFloatLE(i * 4, (i + rank) % world);
                        }
                        g.allReduce(t, ReduceOp.SUM).block(Duration.ofSeconds(30));
                        g.allReduce(m, ReduceOp.MAX).block(Duration.ofSeconds(30));
                        for (int i = 0; i < n; i++) {
                            float want = world * (i % 13) + world * (world - 1) / 2f;
                            check(t.buffer().getFloatLE(i * 4) == want, "allReduce SUM element " + i);
                            check(m.buffer().getFloatLE(i * 4) == world - 1, "allReduce MAX element " + i);
                        }
                    } finally {
                        t.release();
                        m.release();
                    }
                }
                int root = 1 % world;
                for (int n : new int[] {1001, 300_000}) {
                    Tensor b = Tensor.empty(DType.INT64, n);
                    try {
                        for (int i = 0; i < n; i++) {
                            b.buffer().setLongLE(i * 8, rank == root ? i * 31L + 7 : -1);
                        }
                        g.broadcast(b, root).block(Duration.ofSeconds(30));
                        for (int i = 0; i < n; i++) {
                            check(b.buffer().getLongLE(i * 8) == i * 31L + 7, "broadcast element " + i);
                        }
                    } finally {
                        b.release();
                    }
                }
                g.barrier().block(Duration.ofSeconds(30));
            } finally {
                g.close();
            }
            System.out.println("RANK " + rank + " OK via " + g.describeTransportTo(rank == 0 ? 1 : 0));
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("RANK " + rank + " FAILED: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what + " is wrong");
        }
    }
}
