package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.observe.FlightRecorder;

import reactor.core.publisher.Mono;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A process that ends on a collective's failure, for {@link FlightRecorderExitProcessesTest}:
 * {@code TimeoutDumpMain <dumpDir> timeout|teardown|queued}.
 * <ul>
 *   <li>{@code timeout}: a {@link LocalCluster} of two ranks; after a barrier (seq 0) rank 0 all-reduces
 *   (seq 1) with a 300 ms timeout and rank 1 never does; the timeout leaves {@code main} uncaught.</li>
 *   <li>{@code teardown}: the same with {@link ErrorHandling#tearDown()}: the timeout exits the process
 *   (status 3) while {@code main} waits.</li>
 *   <li>{@code queued}: a recorder whose collective (seq 7) failed starts its automatic dump, and
 *   {@code main} throws at once, without waiting for it.</li>
 * </ul>
 */
public final class TimeoutDumpMain {

    private TimeoutDumpMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Path dir = Path.of(args[0]);
        FlightRecorder.Config recorder = FlightRecorder.Config.defaults().withDumpDirectory(dir);
        if (args[1].equals("queued")) {
            FlightRecorder r = new FlightRecorder("exit-queued", 0, 2, recorder);
            FlightRecorder.Entry e = r.record(7, OpType.ALLGATHER, DType.FLOAT32, null, null, "ring");
            e.started();
            IllegalStateException failure = new IllegalStateException("allGather[seq=7] rank 0: gave up");
            e.failed(failure);
            r.dumpOnFailure(failure);
            throw failure;
        }
        boolean tearDown = args[1].equals("teardown");
        GroupOptions options = GroupOptions.defaults().withGroupId("exit-" + args[1])
                .withTimeout(Duration.ofSeconds(30)).withFlightRecorder(recorder);
        LocalCluster c = LocalCluster.start(2, tearDown ? options.withErrorHandling(ErrorHandling.tearDown()) : options)
                .block(Duration.ofSeconds(30));
        c.run(g -> g.barrier().thenReturn(g.rank())).block(Duration.ofSeconds(30));
        Tensor t = Tensor.zeros(DType.FLOAT32, 16);
        Mono<Tensor> timesOut = c.group(0).allReduce(t, ReduceOp.SUM, CollectiveOptions.timeout(Duration.ofMillis(300)));
        if (tearDown) {
            timesOut.subscribe(x -> { }, e -> System.out.println("ERROR " + e));
            Thread.sleep(30_000);
        } else {
            timesOut.block();
        }
        System.out.println("UNEXPECTED: still running");
    }
}
