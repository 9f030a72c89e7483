package io.reactivecollectives.transport;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.observe.Notices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** {@link ErrorHandling}'s reaction to a collective's error for one rank of a group. */
final class GroupErrors implements Consumer<Throwable> {

    /** The logger the group's errors, shrinks and teardown go to (the facade's name, as always). */
    static final String LOGGER = "io.reactivecollectives.transport.MeshProcessGroup";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);

    private final ErrorHandling handling;
    private final String groupId;
    private final int rank;
    private final FlightRecorder recorder;
    private final AtomicBoolean tornDown = new AtomicBoolean();

    /** The longest the exit waits for the flight recorder's dump. */
    private static final Duration DUMP_WAIT = Duration.ofSeconds(5);

    GroupErrors(ErrorHandling handling, String groupId, int rank, FlightRecorder recorder) {
        this.handling = handling;
        this.groupId = groupId;
        this.rank = rank;
        this.recorder = recorder;
    }

    /**
     * {@link ErrorHandling.Mode#TEAR_DOWN}: log, dump the flight recorder (joining the collective's
     * own automatic dump), then exit through the hook on a fresh thread (once).
     */
    @Override
    public void accept(Throwable e) {
        if (handling.mode() != ErrorHandling.Mode.TEAR_DOWN || !(e instanceof CollectiveException)
                || !tornDown.compareAndSet(false, true)) {
            return;
        }
        Notices.error(log, "group '" + groupId + "' rank " + rank + ": tearing the process down (error handling"
                + " TEAR_DOWN) after: " + e.getMessage(), e);
        recorder.dumpOnFailure(e)
                .timeout(DUMP_WAIT, BlockingScheduler.get())
                .onErrorResume(x -> reactor.core.publisher.Mono.empty())
                .doFinally(s -> exit())
                .subscribe();
    }

    private void exit() {
        Thread t = new Thread(() -> handling.exitHook().accept(ErrorHandling.EXIT_STATUS), "rc-teardown");
        t.setDaemon(false);
        t.start();
    }
}
