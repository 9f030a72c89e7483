package io.reactivecollectives.transport;

import reactor.core.publisher.Mono;

import java.util.Map;

/**
 * A way of joining a group that {@link ProcessGroups#fromEnvironment} finds on the class path
 * ({@link java.util.ServiceLoader}): a launcher whose processes learn their rank from something other
 * than environment variables. {@code reactive-spark} provides one for Spark barrier tasks. The
 * variables of collectives-run, torchrun, Kubernetes, Slurm and Open MPI are read by the library
 * itself and need no provider.
 *
 * <p>Implementations are stateless and have a public no-argument constructor; they are listed in
 * {@code META-INF/services/io.reactivecollectives.transport.LaunchProvider}.
 */
public interface LaunchProvider {

    /**
     * The launcher's name, as errors and logs spell it.
     *
     * @return the name, e.g. {@code "Spark barrier task"}
     */
    String name();

    /**
     * Whether the calling process (or thread) runs under this launcher. Cheap and without I/O.
     *
     * @param env the environment ({@code System.getenv()}, or a test's own)
     * @return whether {@link #join} applies here
     */
    boolean detects(Map<String, String> env);

    /**
     * Joins the group this launcher describes. Cold; the group it emits closes whatever the join
     * opened (store clients, servers) when it is closed.
     *
     * @param env     the environment
     * @param options the caller's options (the provider may set the host and timeouts it knows better)
     * @return a cold {@code Mono} emitting this process's rank of the group
     */
    Mono<MeshProcessGroup> join(Map<String, String> env, GroupOptions options);
}
