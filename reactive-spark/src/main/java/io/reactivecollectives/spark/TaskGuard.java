package io.reactivecollectives.spark;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Ties a barrier task's group to the task's life, through the listeners Spark calls on the task's
 * thread:
 * <ul>
 *   <li>failure listener: the group is aborted, which tells every peer at once (their in-flight and
 *       later collectives fail, so their tasks fail too and Spark can retry the stage);</li>
 *   <li>killed: Spark kills the other tasks of a barrier stage when one fails, without necessarily
 *       interrupting their threads; a task killed while computing would only notice at its next
 *       collective, so {@link TaskContext#isInterrupted()} is polled every {@link #KILL_POLL} and a
 *       kill aborts the group (a thread interrupted inside a blocking wait fails there, and then the
 *       failure listener aborts);</li>
 *   <li>completion listener: the polling stops and the group, the store client and (on partition
 *       0) the store server are closed, after the abort frames were written when the task failed.</li>
 * </ul>
 */
final class TaskGuard {

    /** How often a task's kill flag is read. */
    static final Duration KILL_POLL = Duration.ofMillis(50);
    /** How long a failed task waits for its abort frames before closing the group. */
    static final Duration ABORT_GRACE = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(TaskGuard.class);

    private final TaskContext context;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private MeshProcessGroup group;
    private Disposable killPoll;
    private Mono<Void> abort;
    private boolean completed;

    private TaskGuard(TaskContext context) {
        this.context = context;
    }

    /**
     * Registers the listeners on {@code context}.
     *
     * @param context the task
     * @return the guard, to which the task's resources are handed as they are made
     */
    static TaskGuard install(TaskContext context) {
        TaskGuard guard = new TaskGuard(context);
        context.addTaskFailureListener((TaskFailureListener) (c, error) -> guard.abort("task failed: " + error));
        context.addTaskCompletionListener((TaskCompletionListener) c -> guard.complete());
        return guard;
    }

    /**
     * Closes {@code resource} when the task ends (closed in the reverse order of hand-over).
     *
     * @param resource a store client or server
     */
    synchronized void closeOnCompletion(AutoCloseable resource) {
        if (completed) {
            closeQuietly(resource);
        } else {
            resources.push(resource);
        }
    }

    /**
     * Watches {@code g}: aborted when the task fails or is killed, closed when it ends.
     *
     * @param g the task's group
     */
    void watch(MeshProcessGroup g) {
        synchronized (this) {
            if (completed) {
                g.close();
                return;
            }
            group = g;
        }
        // a volatile read of the task's kill reason; on the library's blocking scheduler, as the abort
        // it may start logs (a console appender may block)
        Disposable poll = Flux.interval(KILL_POLL, KILL_POLL, BlockingScheduler.get())
                .filter(t -> context.isInterrupted())
                .next()
                .subscribe(t -> abort("task killed: " + (context.getKillReason().isDefined()
                        ? context.getKillReason().get() : "no reason given")));
        synchronized (this) {
            killPoll = poll;
            if (completed) {
                poll.dispose();
            }
        }
    }

    /** Aborts the group (once), telling every peer. */
    void abort(String why) {
        Mono<Void> a;
        synchronized (this) {
            if (group == null || abort != null) {
                return;
            }
            abort = group.abort().timeout(ABORT_GRACE).onErrorResume(e -> Mono.empty()).cache();
            a = abort;
        }
        log.warn("barrier process group {} (stage {} attempt {}, partition {}): aborting on every rank: {}", group.groupId(),
                context.stageId(), context.stageAttemptNumber(), context.partitionId(), why);
        a.subscribe();
    }

    /** The task ended: stop polling, close everything (after the abort frames, if aborting). */
    void complete() {
        Mono<Void> after;
        MeshProcessGroup g;
        synchronized (this) {
            completed = true;
            if (killPoll != null) {
                killPoll.dispose();
            }
            after = abort == null ? Mono.empty() : abort;
            g = group;
        }
        after.doFinally(s -> {
            if (g != null) {
                g.close();
            }
            synchronized (this) {
                while (!resources.isEmpty()) {
                    closeQuietly(resources.pop());
                }
            }
        }).subscribe();
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            log.debug("closing {} at the end of a barrier task failed", resource, e);
        }
    }
}
