package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.rendezvous.HashStore;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Waits of every kind in one process, for {@link NoLoggingBindingProcessesTest} (run without an
 * SLF4J binding): {@code SilentWaitsMain <dumpDir>}. Rank 1 of a group of two joins 2.5 s after
 * rank 0; then rank 0 all-reduces with a 2.5 s timeout and rank 1 never does; reports every second.
 */
public final class SilentWaitsMain {

    private SilentWaitsMain() {
    }

    public static void main(String[] args) throws Exception {
        GroupOptions o = GroupOptions.defaults().withGroupId("no-binding").withWaitReportInterval(Duration.ofSeconds(1))
                .withFlightRecorder(FlightRecorder.Config.defaults().withDumpDirectory(Path.of(args[0])));
        HashStore store = new HashStore(Duration.ofSeconds(30));
        CompletableFuture<MeshProcessGroup> first = MeshProcessGroup.connect(store, 0, 2, o).toFuture();
        Thread.sleep(2_500);
        MeshProcessGroup g1 = MeshProcessGroup.connect(store, 1, 2, o).block(Duration.ofSeconds(30));
        MeshProcessGroup g0 = first.get(30, TimeUnit.SECONDS);
        Tensor t = Tensor.zeros(DType.FLOAT32, 16);
        try {
            g0.allReduce(t, ReduceOp.SUM, CollectiveOptions.timeout(Duration.ofMillis(2_500))).block();
            System.out.println("UNEXPECTED: no timeout");
        } catch (CollectiveTimeoutException e) {
            System.out.println("TIMEOUT " + e.getMessage());
        }
        g0.flightRecorder().awaitDumps().block(Duration.ofSeconds(10));
        g0.close();
        g1.close();
        store.close();
        t.release();
        System.out.println("DONE");
        System.exit(0);
    }
}
