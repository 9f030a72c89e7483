package io.reactivecollectives.spark;

import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.LaunchProvider;
import io.reactivecollectives.transport.ProcessGroups;
import io.reactivecollectives.transport.MeshProcessGroup;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.TaskContext;
import reactor.core.publisher.Mono;

import java.util.Map;

/**
 * Lets {@link ProcessGroups#fromEnvironment} join inside a Spark barrier task: it applies when the
 * calling thread runs one, and joins through {@link BarrierProcessGroups#connect(GroupOptions)}
 * (rank = partition id; the group, store client and server are closed with the task at the latest).
 */
public final class SparkBarrierLaunch implements LaunchProvider {

    /** Found through {@link java.util.ServiceLoader}. */
    public SparkBarrierLaunch() {
    }

    @Override
    public String name() {
        return "Spark barrier task";
    }

    @Override
    public boolean detects(Map<String, String> env) {
        return TaskContext.get() instanceof BarrierTaskContext;
    }

    @Override
    public Mono<MeshProcessGroup> join(Map<String, String> env, GroupOptions options) {
        return BarrierProcessGroups.connect(options);
    }
}
