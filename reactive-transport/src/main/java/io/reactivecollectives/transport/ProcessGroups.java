package io.reactivecollectives.transport;

import io.reactivecollectives.core.HandOver;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.launch.LaunchEnvironment;
import io.reactivecollectives.transport.launch.Rendezvous;
import io.reactivecollectives.transport.rendezvous.StoreAuth;
import io.reactivecollectives.transport.settings.TransportSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Joins the group that the process's launcher describes, in one call: {@code bin/collectives-run},
 * torchrun, Kubernetes (PyTorchJob, TrainJob, Indexed Job), Slurm and Open MPI through their
 * environment variables ({@link EnvRendezvous} lists them), and Spark barrier tasks when
 * {@code reactive-spark} is on the class path (any {@link LaunchProvider} found there). The store,
 * the address this rank publishes and the clean-up are handled: rank 0 serves the TCP store (or
 * every rank joins torchrun's agent store), every rank connects to it and then to each other, and
 * closing the group closes the store client and server too.
 *
 * <p>As a resource of a {@code Mono} chain:
 * <pre>{@code
 * Mono<float[]> mean = Mono.usingWhen(ProcessGroups.fromEnvironment(),
 *         group -> group.allReduce(grad, ReduceOp.AVG).map(Tensor::toFloatArray),
 *         group -> Mono.fromRunnable(group::close));
 * }</pre>
 * or, in a program's {@code main}, with try-with-resources:
 * <pre>{@code
 * try (MeshProcessGroup group = ProcessGroups.fromEnvironment().block()) {
 *     group.allReduce(grad, ReduceOp.SUM).block();
 * }
 * }</pre>
 * {@link #run} does the first and meets the other ranks at a barrier before closing, so that no
 * rank closes the store while another still needs it.
 *
 * <p>From the environment: the group binds and publishes the address of the interface that reaches
 * the store's host ({@code RC_HOST} overrides it; see {@link EnvRendezvous#groupHost}) unless the
 * options name a host other than the default loopback; {@code RC_STORE_SECRET}, when set and the
 * options have no secret, authenticates the group's connections as well as the store's; the store
 * client waits for the store as long as the options' connect timeout; {@code RC_GROUP_ID} names the
 * group where the options leave the default id ({@code default}), so that jobs sharing one store
 * stay apart.
 */
public final class ProcessGroups {

    private static final Logger log = LoggerFactory.getLogger(ProcessGroups.class);

    private ProcessGroups() {
    }

    /**
     * {@link #fromEnvironment(Map, GroupOptions)} with {@code System.getenv()} and
     * {@link GroupOptions#defaults()}.
     *
     * @return a cold {@code Mono} emitting this process's rank of the group
     */
    public static Mono<MeshProcessGroup> fromEnvironment() {
        return fromEnvironment(GroupOptions.defaults());
    }

    /**
     * {@link #fromEnvironment(Map, GroupOptions)} with {@code System.getenv()}.
     *
     * @param options the group's settings (the same on every rank)
     * @return a cold {@code Mono} emitting this process's rank of the group
     */
    public static Mono<MeshProcessGroup> fromEnvironment(GroupOptions options) {
        return Mono.defer(() -> fromEnvironment(System.getenv(), options));
    }

    /**
     * Joins the group the launcher describes. Cold: on subscription reads {@code env} (missing,
     * malformed or contradictory variables fail with an {@link IllegalArgumentException} naming
     * them, before anything is started), then rendezvous and connect. When the join fails or is
     * cancelled, what it opened is closed.
     *
     * @param env     the environment ({@code System.getenv()}; tests pass their own)
     * @param options the group's settings (the same on every rank)
     * @return a cold {@code Mono} emitting this process's rank of the group; closing the group
     *         closes the store it joined through
     */
    public static Mono<MeshProcessGroup> fromEnvironment(Map<String, String> env, GroupOptions options) {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(options, "options");
        return Mono.defer(() -> {
            GroupOptions named = fromSettings(options, env);
            GroupOptions o = named.diagnostics().dashboard() != null ? named
                    : named.withDashboard(DashboardOptions.fromEnvironment(env));   // RC_DASHBOARD (collectives-run --dashboard)
            for (LaunchProvider provider : ServiceLoader.load(LaunchProvider.class, ProcessGroups.class.getClassLoader())) {
                if (provider.detects(env)) {
                    return provider.join(env, o);
                }
            }
            return fromVariables(env, o);
        }).doOnDiscard(MeshProcessGroup.class, MeshProcessGroup::close);
    }

    /**
     * Joins the group from {@code System.getenv()} with {@link GroupOptions#defaults()}, runs
     * {@code body} on it, meets the other ranks at a barrier and closes the group and its store,
     * however the body ends.
     *
     * @param body what this rank does with the group
     * @param <T>  the body's result
     * @return a cold {@code Mono} of the body's result
     */
    public static <T> Mono<T> run(Function<? super MeshProcessGroup, ? extends Mono<T>> body) {
        return run(GroupOptions.defaults(), body);
    }

    /**
     * {@link #run(Function)} with the given options.
     *
     * @param options the group's settings (the same on every rank)
     * @param body    what this rank does with the group
     * @param <T>     the body's result
     * @return a cold {@code Mono} of the body's result
     */
    public static <T> Mono<T> run(GroupOptions options, Function<? super MeshProcessGroup, ? extends Mono<T>> body) {
        return Mono.defer(() -> run(System.getenv(), options, body));
    }

    /**
     * {@link #run(Function)} with the given environment and options.
     *
     * @param env     the environment ({@code System.getenv()}; tests pass their own)
     * @param options the group's settings (the same on every rank)
     * @param body    what this rank does with the group
     * @param <T>     the body's result
     * @return a cold {@code Mono} of the body's result
     */
    public static <T> Mono<T> run(Map<String, String> env, GroupOptions options,
                                  Function<? super MeshProcessGroup, ? extends Mono<T>> body) {
        Objects.requireNonNull(body, "body");
        return Mono.usingWhen(fromEnvironment(env, options),
                group -> body.apply(group).flatMap(result -> group.barrier().thenReturn(result)),
                group -> Mono.fromRunnable(group::close));
    }

    /**
     * {@code options} with the group id {@code RC_GROUP_ID} ({@code rc.group.id}) and the collective
     * timeout {@code RC_GROUP_TIMEOUT} ({@code rc.group.timeout}) name, each where the options leave
     * the default; else {@code options}.
     */
    static GroupOptions fromSettings(GroupOptions options, Map<String, String> env) {
        GroupOptions defaults = GroupOptions.defaults();
        String id = TransportSettings.GROUP_ID.get(env);
        GroupOptions named = id == null || !options.groupId().equals(defaults.groupId()) ? options : options.withGroupId(id);
        java.time.Duration timeout = TransportSettings.GROUP_TIMEOUT.get(env);
        return timeout == null || !options.timeout().equals(defaults.timeout()) ? named : named.withTimeout(timeout);
    }

    /**
     * {@code options} completed from the launcher's variables: the host this rank binds and publishes
     * (unless the options name one) and {@code RC_STORE_SECRET} (unless they have a secret).
     */
    static GroupOptions fromVariables(GroupOptions options, Map<String, String> env) {
        GroupOptions effective = options;
        if (options.host().equals(GroupOptions.defaults().host())) {
            effective = effective.withHost(EnvRendezvous.groupHost(env));
        }
        byte[] secret = StoreAuth.secretFrom(env);
        if (options.secret() == null && secret != null) {
            effective = effective.withSecret(new String(secret, StandardCharsets.UTF_8));
        }
        return effective;
    }

    private static Mono<MeshProcessGroup> fromVariables(Map<String, String> env, GroupOptions options) {
        LaunchEnvironment launch = EnvRendezvous.resolve(env);
        GroupOptions settings = fromVariables(options, env);
        long start = System.nanoTime();
        // failed or cancelled before the group was handed over: the store it joined through (and rank
        // 0's server) is closed; after, the group owns it
        return HandOver.openThen(EnvRendezvous.connect(env, settings.connectTimeout()),
                        rdv -> MeshProcessGroup.connect(rdv.store(), rdv.rank(), rdv.worldSize(), settings)
                                .doOnNext(group -> group.closeAfterGroup(rdv)),
                        Rendezvous::close)
                .doOnNext(group -> log.info("rank {} of {} joined group '{}' ({} launch, store {}:{}, this rank at {}) "
                                + "in {} ms", launch.rank(), launch.worldSize(), settings.groupId(), launch.launcher(),
                        launch.masterAddr(), launch.masterPort(), settings.host(),
                        (System.nanoTime() - start) / 1_000_000));
    }
}
