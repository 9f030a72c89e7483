package io.reactivecollectives.transport;

import io.netty.channel.Channel;
import io.reactivecollectives.core.rendezvous.FileStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.runtime.GroupRuntime;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * One rank in its own JVM, for {@link ExitAfterCloseTest}: {@code ExitAfterCloseMain <storeFile> <rank>},
 * world 2. Both ranks run a barrier; rank 0 then closes its group and exits at once
 * ({@code System.exit(0)} right after {@code close()}, as a program's last lines do), while the
 * event loop of its connection to rank 1 is busy for {@value #BUSY_MS} ms (as on a loaded machine,
 * or with user code chained on that loop), so its GOODBYE frame is still queued when it exits.
 * Rank 1 runs a second barrier, which fails when rank 0 leaves, prints {@code RANK 1 SAW <message>}
 * (the failure's message) and exits 0, or prints {@code RANK 1 FAILED} and exits 1 when something
 * else happened.
 */
public final class ExitAfterCloseMain {

    static final long BUSY_MS = 500;

    public static void main(String[] args) {
        Path storeFile = Path.of(args[0]);
        int rank = Integer.parseInt(args[1]);
        try (Store store = new FileStore(storeFile, Duration.ofSeconds(30))) {
            MeshProcessGroup g = MeshProcessGroup.connect(store, rank, 2,
                    GroupOptions.defaults().withGroupId("exit-after-close").withConnectTimeout(Duration.ofSeconds(30))
                            .withTimeout(Duration.ofSeconds(20))).block(Duration.ofSeconds(40));
            g.barrier().block(Duration.ofSeconds(20));
            if (rank == 0) {
                keepBusy(g);
                g.close();
                System.exit(0);
            }
            try {
                g.barrier().block(Duration.ofSeconds(20));
                System.out.println("RANK 1 FAILED: the second barrier completed without rank 0");
                System.exit(1);
            } catch (RuntimeException e) {
                System.out.println("RANK 1 SAW " + e.getMessage());
            }
            g.close();
            System.exit(0);
        } catch (Throwable e) {
            System.out.println("RANK " + rank + " FAILED: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
    }

    /** Occupies the event loop of rank 0's data connection to rank 1 for {@link #BUSY_MS} ms, from now. */
    private static void keepBusy(MeshProcessGroup g) throws Exception {
        Field f = MeshProcessGroup.class.getDeclaredField("runtime");
        f.setAccessible(true);
        Channel toRank1 = ((io.reactivecollectives.transport.mesh.Mesh) ((GroupRuntime) f.get(g)).mesh()).socketLink(1).channel();
        CountDownLatch started = new CountDownLatch(1);
        toRank1.eventLoop().execute(() -> {
            started.countDown();
            try {
                Thread.sleep(BUSY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        started.await();
    }
}
