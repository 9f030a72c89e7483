package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.BlockingScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link FlightRecorder}'s dump files (written atomically: a temporary file, synced, then moved in
 * place, on the {@link BlockingScheduler}), the chain of automatic dumps on failures (each also
 * registered with {@link PendingDumps}, whose shutdown hook writes it if the process exits first),
 * and the one-line description of a collective for error messages.
 */
final class FlightRecorderDumps {

    private static final Logger LOG = LoggerFactory.getLogger(FlightRecorder.class);

    /** The longest a collective's error waits for its automatic dump. */
    static final Duration MAX_ERROR_DELAY = Duration.ofSeconds(5);

    private final FlightRecorder recorder;
    private final AtomicReference<AutoDump> lastAutoDump = new AtomicReference<>();

    FlightRecorderDumps(FlightRecorder recorder) {
        this.recorder = recorder;
    }

    Mono<Path> dump(String reason) {
        return Mono.fromCallable(() -> write(recorder.snapshot(reason))).subscribeOn(BlockingScheduler.get());
    }

    Mono<Path> dumpOnFailure(String reason) {
        for (;;) {
            AutoDump prev = lastAutoDump.get();
            if (prev != null && !prev.started()) {
                return prev.result;
            }
            AutoDump next = new AutoDump(reason, prev);
            if (lastAutoDump.compareAndSet(prev, next)) {
                next.result.subscribe(p -> Notices.warn(LOG, written(recorder, p)),
                        e -> Notices.warn(LOG, "group '" + recorder.groupId() + "' rank " + recorder.rank()
                                + ": flight recorder dump to " + recorder.dumpFile() + " failed: " + e));
                return next.result;
            }
            next.job.discard();
        }
    }

    /**
     * {@code group 'g' rank 2: flight recorder dump written to <file>; every rank's dumps of this job:
     * collectives-analyze <job directory>}.
     */
    static String written(FlightRecorder recorder, Path file) {
        Path dir = file.getParent();
        return "group '" + recorder.groupId() + "' rank " + recorder.rank() + ": flight recorder dump written to "
                + file + (dir == null || recorder.job() == null ? "" : "; every rank's dumps of this job: collectives-analyze "
                + dir);
    }

    Mono<Void> awaitDumps() {
        AutoDump last = lastAutoDump.get();
        return last == null ? Mono.empty() : last.result.onErrorResume(e -> Mono.empty()).then();
    }

    private final class AutoDump {
        final PendingDumps.Job job;
        final Mono<Path> result;

        AutoDump(String reason, AutoDump prev) {
            Mono<Void> after = prev == null ? Mono.empty() : prev.result.onErrorResume(e -> Mono.empty()).then();
            this.job = PendingDumps.add(recorder.dumpFile(), () -> write(recorder.snapshot(reason)));
            this.result = after.then(Mono.fromCallable(job::run).subscribeOn(BlockingScheduler.get())).cache();
        }

        boolean started() {
            return job.started();
        }
    }

    /**
     * {@code error}, once the automatic dump {@code dump} has been written, or has failed, or
     * {@link #MAX_ERROR_DELAY} has passed (timed on {@link BlockingScheduler}, in real time).
     */
    static <T> Mono<T> errorAfter(Mono<Path> dump, Throwable error) {
        return dump.timeout(MAX_ERROR_DELAY, BlockingScheduler.get())
                .onErrorResume(e -> Mono.empty())
                .then(Mono.error(error));
    }

    /** Writes {@code dump} to a temporary file in the target's directory, syncs it, then moves it in place. */
    private Path write(FlightRecorderDump dump) throws IOException {
        Path target = recorder.dumpFile();
        Path dir = target.getParent() == null ? Paths.get(".") : target.getParent();
        Files.createDirectories(dir);
        byte[] json = FlightRecorderJsonWriter.toBytes(dump);
        Path tmp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(json);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    /** {@link FlightRecorder#describe(long)}. */
    static String describe(FlightRecorder recorder, long seq) {
        FlightRecorder.Entry e = recorder.find(seq);
        long now = System.nanoTime();
        StringBuilder sb = new StringBuilder("flight recorder: ");
        if (e == null) {
            sb.append("seq ").append(seq).append(" not in the buffer");
        } else {
            sb.append(e.op.displayName()).append(" seq ").append(seq).append(' ').append(e.state);
            long since = e.state == FlightRecorder.State.SCHEDULED ? e.scheduledNanos : e.startedNanos;
            if (e.state == FlightRecorder.State.SCHEDULED || e.state == FlightRecorder.State.STARTED) {
                sb.append(' ').append(TimeUnit.NANOSECONDS.toMillis(now - since)).append(" ms ago");
            }
            int peer = e.waitingFor;
            if (peer >= 0) {
                sb.append(", waiting for rank ").append(peer);
                String what = e.waitingWhat;
                if (what != null) {
                    sb.append(" (").append(what).append(')');
                }
            }
        }
        long lastCompleted = -1;
        for (FlightRecorder.Entry x : recorder.slots()) {
            if (x != null && x.state == FlightRecorder.State.COMPLETED && x.seq > lastCompleted) {
                lastCompleted = x.seq;
            }
        }
        sb.append(lastCompleted >= 0 ? "; last completed seq " + lastCompleted : "; none completed");
        return sb.toString();
    }

    static long bytes(long[][] shapes, io.reactivecollectives.core.DType dtype) {
        if (dtype == null) {
            return 0;
        }
        long total = 0;
        for (long[] s : shapes) {
            long n = 1;
            for (long d : s) {
                n *= d;
            }
            total += n;
        }
        return total * dtype.byteSize();
    }

    static java.util.List<java.util.List<Long>> shapes(long[][] shapes) {
        java.util.List<java.util.List<Long>> out = new java.util.ArrayList<>(shapes.length);
        for (long[] s : shapes) {
            java.util.List<Long> dims = new java.util.ArrayList<>(s.length);
            for (long d : s) {
                dims.add(d);
            }
            out.add(dims);
        }
        return out;
    }
}
