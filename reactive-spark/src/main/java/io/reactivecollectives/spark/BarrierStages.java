package io.reactivecollectives.spark;

import org.apache.spark.SparkConf;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Driver-side checks that a stage of collectives can run as a barrier stage, with an error that
 * says why not and what to change, before Spark is asked to run it: with dynamic allocation Spark
 * refuses barrier stages, and a stage with more tasks than the cluster has task slots is not started
 * until Spark's own check has retried for minutes
 * ({@code spark.scheduler.barrier.maxConcurrentTasksCheck.*}).
 */
public final class BarrierStages {

    private static final Pattern LOCAL_N = Pattern.compile("local\\[(\\d+|\\*)(?:,\\s*\\d+)?]");
    private static final Pattern LOCAL_CLUSTER = Pattern.compile("local-cluster\\[\\s*(\\d+)\\s*,\\s*(\\d+)\\s*,\\s*\\d+\\s*]");

    private BarrierStages() {
    }

    /**
     * Checks that a barrier stage of {@code tasks} tasks (one per rank) can run under {@code conf}.
     *
     * @param conf  the application's configuration ({@code sparkContext.getConf()})
     * @param tasks the stage's number of tasks (partitions), the group's world size
     * @throws IllegalStateException when dynamic allocation is on, or a local master has fewer task
     *                               slots than {@code tasks}; the message names the setting to change
     * @throws IllegalArgumentException when {@code tasks < 1}
     */
    public static void requireRunnable(SparkConf conf, int tasks) {
        Objects.requireNonNull(conf, "conf");
        if (tasks < 1) {
            throw new IllegalArgumentException("a barrier stage needs at least 1 task, got " + tasks);
        }
        String master = conf.get("spark.master", "");
        boolean local = master.equals("local") || master.startsWith("local[");
        if (conf.getBoolean("spark.dynamicAllocation.enabled", false)
                && (!local || conf.getBoolean("spark.dynamicAllocation.testing", false))) {
            throw new IllegalStateException("collectives of " + tasks + " ranks need a barrier stage, which Spark does not "
                    + "run with dynamic allocation (spark.dynamicAllocation.enabled=true): set it to false for this "
                    + "application, or give the stage a fixed set of executors in an application of its own");
        }
        OptionalInt slots = localSlots(master, conf.getInt("spark.task.cpus", 1));
        if (slots.isPresent() && slots.getAsInt() < tasks) {
            throw new IllegalStateException("collectives of " + tasks + " ranks need a barrier stage of " + tasks
                    + " tasks running at once, but master " + master + " has " + slots.getAsInt() + " task slot(s) "
                    + "(spark.task.cpus=" + conf.getInt("spark.task.cpus", 1) + "): repartition to at most "
                    + slots.getAsInt() + " partitions or give the application more cores");
        }
    }

    /** The task slots of a local master ({@code local}, {@code local[N]}, {@code local[*]}, {@code local-cluster[W,C,M]}). */
    static OptionalInt localSlots(String master, int cpusPerTask) {
        int cores;
        Matcher m;
        if (master.equals("local")) {
            cores = 1;
        } else if ((m = LOCAL_N.matcher(master)).matches()) {
            cores = m.group(1).equals("*") ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(m.group(1));
        } else if ((m = LOCAL_CLUSTER.matcher(master)).matches()) {
            return OptionalInt.of(Integer.parseInt(m.group(1)) * (Integer.parseInt(m.group(2)) / Math.max(1, cpusPerTask)));
        } else {
            return OptionalInt.empty();
        }
        return OptionalInt.of(cores / Math.max(1, cpusPerTask));
    }
}
