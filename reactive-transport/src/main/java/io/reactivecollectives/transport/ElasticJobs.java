package io.reactivecollectives.transport;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.failure.GrowPlanner;
import io.reactivecollectives.transport.launch.LaunchEnvironment;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What an elastic job leaves in its store for the processes that come after its start, and the
 * rule by which {@link ElasticGroup#fromEnvironment} tells a process of that job (a rank restarted,
 * a host's ranks started again) from one of another job that meets in the same store under the same
 * group id (a stand-alone store shared by several jobs, or one an earlier job left behind).
 *
 * <p>Rank 0 of generation 0 marks the job running ({@code rc/<group>/elastic/running}) with the
 * world size it was launched with; {@link ElasticGroup#finish()} marks it finished. A process from
 * the environment then:
 * <ul>
 *   <li>connects as a member of a new job where no job of its group id is running;</li>
 *   <li>fails, where the job it finds was launched with another {@code WORLD_SIZE}: collectives-run
 *   restarts a rank, and a host's agent starts its ranks again, with the job's own, so the process is
 *   another job's, which would otherwise be given a free identity and grow this one;</li>
 *   <li>fails, where it was not restarted ({@code RC_RESTART_COUNT} unset) and the job it finds has
 *   finished: a new job would otherwise be told the job ended and do nothing (a restarted rank that
 *   comes too late is told so, {@link io.reactivecollectives.core.JobEndedException});</li>
 *   <li>else asks to join with its launch rank as identity.</li>
 * </ul>
 * Two jobs of one world size and group id on one store are not told apart before the second's
 * processes are admitted: give each job its own {@code RC_GROUP_ID}.
 */
final class ElasticJobs {

    private ElasticJobs() {
    }

    /** The key rank 0 sets once generation 0 is connected. */
    static String runningKey(String base) {
        return "rc/" + base + "/elastic/running";
    }

    /** The running mark's value: the world size the job was launched with. */
    static byte[] running(int worldSize) {
        return ("worldSize=" + worldSize).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Whether this process joins the running job (true) or starts the job as a member (false);
     * fails with an {@link IllegalStateException} naming the store, the group and what to do when it
     * belongs to neither (see the class's rule).
     *
     * @param store     the job's root store
     * @param base      the group id
     * @param launch    this process's launch (its rank and world size)
     * @param restarted whether the launcher restarted this process ({@code RC_RESTART_COUNT} above 0)
     * @return a cold {@code Mono} of whether it joins
     */
    static Mono<Boolean> joins(Store store, String base, LaunchEnvironment launch, boolean restarted) {
        String running = runningKey(base);
        return store.check(List.of(running)).flatMap(isRunning -> {
            if (!isRunning) {
                return Mono.just(restarted);
            }
            return store.get(running)
                    .flatMap(mark -> checkWorldSize(store, base, launch, mark)
                            .then(restarted ? Mono.just(true) : store.check(List.of(GrowPlanner.finishedKey(base)))
                                    .map(finished -> {
                                        if (finished) {
                                            throw refused(store, base, launch, "the store holds a finished job of group '"
                                                    + base + "' (its members called finish()), and this process was not "
                                                    + "restarted (RC_RESTART_COUNT unset): it is not one of that job's");
                                        }
                                        return true;
                                    })));
        });
    }

    private static Mono<Void> checkWorldSize(Store store, String base, LaunchEnvironment launch, byte[] mark) {
        String text = new String(mark, StandardCharsets.UTF_8);
        if (!text.startsWith("worldSize=")) {
            return Mono.empty();   // the mark of an older version: no world size to compare
        }
        int theirs = Integer.parseInt(text.substring("worldSize=".length()).trim());
        if (theirs == launch.worldSize()) {
            return Mono.empty();
        }
        return Mono.error(refused(store, base, launch, "the store holds a running job of group '" + base
                + "' launched with WORLD_SIZE " + theirs + ", not this process's " + launch.worldSize()
                + ": this process is another job's, and joining would grow that job instead of starting its own"));
    }

    private static IllegalStateException refused(Store store, String base, LaunchEnvironment launch, String why) {
        return new IllegalStateException("join of group '" + base + "' as rank " + launch.rank() + " of "
                + launch.worldSize() + " through store " + store + " (" + launch.masterAddr() + ":" + launch.masterPort()
                + "): " + why + "; start this job with a fresh store or another RC_GROUP_ID (the same on all its ranks)");
    }
}
