package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.ElasticState;
import io.reactivecollectives.core.GenerationEvent;
import io.reactivecollectives.core.JobEndedException;
import io.reactivecollectives.core.QuorumLostException;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.failure.GrowPlan;
import io.reactivecollectives.transport.failure.GrowPlanner;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.launch.LaunchEnvironment;
import io.reactivecollectives.transport.settings.TransportSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A group whose membership changes while the job runs: a lost rank is shrunk out ({@link #recover}),
 * and a process that asks to join (a restarted rank, or a new one) is admitted at the next
 * {@link #boundary()} with the application's {@link ElasticState} streamed to it from a member, so
 * that the job goes on at full size without stopping the ranks that stayed.
 *
 * <p>Each change is a new generation ({@link #generations()}): a new {@link MeshProcessGroup} with
 * the id {@code <group>@gen<N>}, which {@link #group()} returns from then on. Members keep an
 * identity for life (generation 0's rank, or the one a joiner was given); ranks are renumbered by
 * ascending identity, so a restarted rank that asks for its old identity gets its old rank back.
 *
 * <p>A training loop calls {@link #boundary()} before each step (all members must call it at the
 * same point: it is a collective), and {@link #recover(Throwable)} when a step's collective fails,
 * then takes the step again on the new generation (no step is applied twice or skipped). The
 * boundary belongs inside the {@code try}: its broadcast fails like a step's collective when a peer
 * dies, and must be recovered from the same way:
 * <pre>{@code
 * try (ElasticGroup elastic = ElasticGroup.fromEnvironment(state, GroupOptions.defaults()).block()) {
 *     while (state.step() < steps) {
 *         try {
 *             elastic.boundary().block();       // a collective: admits joiners, hands them the state
 *             trainStep(elastic.group());       // shard by group().rank() and size()
 *         } catch (CollectiveException e) {
 *             elastic.recover(e).block();       // shrinks to the survivors (quorum permitting)
 *         }
 *     }
 *     elastic.finish().block();                 // processes still asking to join are told the job ended
 * }
 * }</pre>
 *
 * <p>Joins are planned in the store ({@code GrowPlanner}'s protocol): rank 0 of the generation reads
 * the join requests, at most every {@value #POLL_MILLIS} ms, and the members agree on them with a
 * one-element broadcast at every boundary; while the store does not answer, a boundary admits
 * nobody and the members train on. A joiner whose {@link ElasticState#fingerprint()} differs
 * from the members' is refused with an error naming both, and the group goes on unchanged; a joiner
 * that does not connect within {@code rc.elastic.connectTimeout} (30 s; at most the group's connect
 * timeout) is left out and the group goes on without it (its generation number is not used again).
 *
 * <p>The store must outlive any one rank for rank 0 to be replaceable: under
 * {@code collectives-run --max-restarts N} the launcher serves it ({@code RC_AGENT_STORE}).
 */
public final class ElasticGroup implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ElasticGroup.class);
    /** How often rank 0 reads the store's join tickets, at most. */
    public static final long POLL_MILLIS = 100;

    private final ElasticState state;
    private final int identityAtStart;
    private final boolean joined;
    /** On a joiner, until its first {@link #boundary()}: the members' boundary it was admitted at. */
    private volatile boolean admittedAtBoundary;
    private volatile MeshProcessGroup group;
    /** Rank 0's last reading of the join tickets, and when, and whether the store failed it (guarded by this). */
    private long tickets;
    private long polledAt;
    private boolean storeLost;

    private ElasticGroup(MeshProcessGroup group, ElasticState state, boolean joined) {
        this.group = group;
        this.state = state;
        this.joined = joined;
        this.admittedAtBoundary = joined;
        this.identityAtStart = group.lineage().identities()[group.rank()];
    }

    /**
     * An elastic group over a group every member has connected (generation 0, or any generation).
     *
     * @param group the connected group
     * @param state this rank's state, handed to joiners
     * @return the elastic group, which now owns {@code group}
     */
    public static ElasticGroup of(MeshProcessGroup group, ElasticState state) {
        return new ElasticGroup(Objects.requireNonNull(group, "group"), Objects.requireNonNull(state, "state"), false);
    }

    /**
     * Asks to join the running group {@code options.groupId()} that meets through {@code store},
     * waits until its members admit this process at a boundary, connects as the new generation and
     * receives the state into {@code state} (checked by digest; {@link ElasticState#restore} is then
     * called). Waits at most the options' connect timeout for the admission.
     *
     * @param store    the job's root store (the one the group was started with)
     * @param identity the identity asked for (a restarted rank's old rank), or -1 for any
     * @param state    this process's state: same fingerprint as the members', overwritten
     * @param options  the group's options (the same group id as the members')
     * @return a cold {@code Mono} of the joined group; fails when refused (naming why), not
     *         admitted in time, or with {@link JobEndedException} when the members {@linkplain #finish()
     *         finished} instead
     */
    public static Mono<ElasticGroup> join(Store store, int identity, ElasticState state, GroupOptions options) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(options, "options");
        String base = options.groupId();
        return GrowPlanner.request(store, base, identity, state.fingerprint(), options.connectTimeout(),
                        options.diagnostics().waitReportInterval())
                .flatMap(admission -> {
                    GrowPlan plan = admission.plan();
                    // collectives-run watches a restarted rank's output for this line (Restarts.ADMITTED)
                    log.info("group '{}': admitted as identity {}, rank {} of {} in generation {}", base,
                            admission.identity(), plan.rankOf(admission.identity()), plan.size(), plan.generation());
                    return connect(store, plan, admission.identity(), options)
                            .map(g -> {
                                g.continues(new GroupLineage(base, event(plan), store, plan.handled()), List.of());
                                return new ElasticGroup(g, state, true);
                            })
                            .flatMap(e -> StateTransfer.run(e.group, source(plan.members(), plan.joined()), state, true)
                                    .thenReturn(e)
                                    .doOnError(err -> e.close()));
                });
    }

    /**
     * Joins the group the launcher describes ({@link ProcessGroups#fromEnvironment}) as a member, or
     * asks to join the running group with its launch rank as identity (see {@link #join}): in a
     * process {@code collectives-run --max-restarts} restarted ({@code RC_RESTART_COUNT} set), and,
     * where the launcher serves the store ({@code RC_AGENT_STORE}), in any process that finds the job
     * already running (a host's ranks started again by its agent after the host was lost). A job
     * counts as running once its rank 0 has connected generation 0, which every first process has
     * reached by then. A process of another job that meets in the same store under the same group id
     * fails instead of joining ({@code ElasticJobs}' rule: one launched with another
     * {@code WORLD_SIZE}, or one not restarted that finds the job finished); {@code RC_GROUP_ID}
     * names the group where {@code options} leave the default id, so that jobs sharing a store stay
     * apart.
     *
     * @param state   this process's state
     * @param options the group's settings (the same on every rank)
     * @return a cold {@code Mono} of the elastic group; closing it closes the store it joined through
     */
    public static Mono<ElasticGroup> fromEnvironment(ElasticState state, GroupOptions options) {
        return Mono.defer(() -> fromEnvironment(System.getenv(), state, options));
    }

    /**
     * {@link #fromEnvironment(ElasticState, GroupOptions)} with the given environment.
     *
     * @param env     the environment
     * @param state   this process's state
     * @param options the group's settings
     * @return a cold {@code Mono} of the elastic group
     */
    public static Mono<ElasticGroup> fromEnvironment(Map<String, String> env, ElasticState state, GroupOptions options) {
        Objects.requireNonNull(env, "env");
        return Mono.defer(() -> {
            boolean restarted = TransportSettings.RESTART_COUNT.get(env) > 0;
            GroupOptions named = ProcessGroups.fromSettings(options, env);
            if (!restarted && !TransportSettings.AGENT_STORE.get(env)) {
                return member(env, state, named);
            }
            LaunchEnvironment launch = EnvRendezvous.resolve(env);
            GroupOptions o = ProcessGroups.fromVariables(named, env);
            return EnvRendezvous.connect(env, o.connectTimeout())
                    .flatMap(rdv -> ElasticJobs.joins(rdv.store(), named.groupId(), launch, restarted)
                            .flatMap(join -> {
                                if (!join) {
                                    rdv.close();
                                    return member(env, state, named);
                                }
                                return join(rdv.store(), launch.rank(), state, o)
                                        .doOnNext(e -> e.group.closeAfterGroup(rdv));
                            })
                            .doOnError(err -> rdv.close()));
        });
    }

    /** A first process: connects generation 0; rank 0 then marks the job running. */
    private static Mono<ElasticGroup> member(Map<String, String> env, ElasticState state, GroupOptions options) {
        return ProcessGroups.fromEnvironment(env, options)
                .flatMap(g -> (g.rank() != 0 ? Mono.<Void>empty()
                        : g.store().set(ElasticJobs.runningKey(options.groupId()), ElasticJobs.running(g.size())))
                        .thenReturn(g)
                        .doOnError(e -> g.close()))
                .map(g -> of(g, state));
    }

    /**
     * Whether the launcher restarts failed ranks ({@code collectives-run --max-restarts N} with N
     * above 0 sets {@code RC_MAX_RESTARTS}): a program then runs elastically, so that a restarted
     * rank can join.
     *
     * @param env the environment ({@code System.getenv()})
     * @return whether restarts are on
     */
    public static boolean restartsEnabled(Map<String, String> env) {
        return TransportSettings.MAX_RESTARTS.get(env) > 0;
    }

    /** {@return the newest generation's group on this rank} */
    public MeshProcessGroup group() {
        return group;
    }

    /** {@return whether this process joined a running group (its state came from a member)} */
    public boolean joined() {
        return joined;
    }

    /** {@return this process's identity in the group (its rank in generation 0, or the one it joined with)} */
    public int identity() {
        return identityAtStart;
    }

    /**
     * The generations of this group (see {@link MeshProcessGroup#generations()}): START or, on a
     * joiner, the GROW it joined by, then one SHRINK or GROW per change.
     *
     * @return the generation events, replayed to every subscriber
     */
    public Flux<GenerationEvent> generations() {
        return group.generations();
    }

    /**
     * A boundary every member reaches at the same point (a collective): admits the processes that
     * asked to join since the last one, connects the next generation with them and streams the
     * state to them. Emits whether the group changed. On a joiner, the first call is the boundary
     * it was admitted at (the members are past it): it emits true at once, with no collective.
     *
     * @return a cold {@code Mono}: true when a new generation began, false otherwise
     */
    public Mono<Boolean> boundary() {
        return Mono.defer(() -> {
            if (admittedAtBoundary) {
                admittedAtBoundary = false;
                return Mono.just(true);
            }
            MeshProcessGroup g = group;
            GroupLineage lineage = g.lineage();
            Tensor box = Tensor.fromLongs(new long[] {0}, 1);
            Mono<Long> newest = g.rank() == 0 ? pollTickets(lineage) : Mono.just(0L);
            return newest.flatMap(t -> {
                        box.setLong(0, t);
                        return g.broadcast(box, 0);
                    })
                    .map(b -> b.getLong(0))
                    .doFinally(s -> box.release())
                    .flatMap(t -> t <= lineage.handledTickets() ? Mono.just(false) : grow(g, lineage, t));
        });
    }

    /**
     * After a collective of a step failed: shrinks to the members that are alive (see
     * {@link MeshProcessGroup#shrink()}, under the group's quorum) and makes that generation the
     * group; then, when the survivors' {@link ElasticState#version()}s differ (the failed step
     * completed on some of them), the ranks behind take the state of the lowest rank that is
     * furthest. An error that is not a collective's (or a {@link QuorumLostException}) is passed on.
     *
     * @param error what the step failed with
     * @return a cold {@code Mono} of the new generation's group
     */
    public Mono<MeshProcessGroup> recover(Throwable error) {
        return Mono.defer(() -> {
            if (!(error instanceof CollectiveException) || error instanceof QuorumLostException) {
                return Mono.error(error);
            }
            MeshProcessGroup g = group;
            log.warn("group '{}' rank {}: recovering from {}", g.groupId(), g.rank(), error.toString());
            return g.shrink().cast(MeshProcessGroup.class)
                    .doOnNext(next -> group = next)
                    .flatMap(next -> StateTransfer.resync(next, state).thenReturn(next));
        });
    }

    /**
     * The job is done: tells processes still asking to join (a rank restarted too late, a host come
     * back after the last step), which then fail with {@link JobEndedException} instead of waiting;
     * call it on every rank (or at least one) after the last step, before {@link #close()}.
     *
     * @return a cold {@code Mono} completing once the store holds the mark
     */
    public Mono<Void> finish() {
        return Mono.defer(() -> {
            GroupLineage lineage = group.lineage();
            return lineage.root().set(GrowPlanner.finishedKey(lineage.base()), new byte[] {1})
                    .timeout(group.options().connectTimeout());
        });
    }

    /** Closes the newest generation (and the store it joined through). */
    @Override
    public void close() {
        group.close();
    }

    private synchronized Mono<Long> pollTickets(GroupLineage lineage) {
        long now = System.nanoTime();
        if (polledAt != 0 && now - polledAt < POLL_MILLIS * 1_000_000) {
            return Mono.just(tickets);
        }
        polledAt = now;
        return GrowPlanner.tickets(lineage.root(), lineage.base())
                .timeout(group.options().connectTimeout())
                .doOnNext(t -> {
                    synchronized (this) {
                        tickets = Math.max(tickets, t);
                        storeLost = false;
                    }
                })
                .onErrorResume(e -> {
                    // the store is gone (its host lost): the members train on, admitting nobody until it answers
                    synchronized (this) {
                        if (!storeLost) {
                            storeLost = true;
                            log.warn("group '{}': the store {} did not answer the join tickets ({}); the members go on "
                                    + "without admitting anyone until it does", lineage.base(), lineage.root(), e.toString());
                        }
                        return Mono.just(tickets);
                    }
                });
    }

    private Mono<Boolean> grow(MeshProcessGroup g, GroupLineage lineage, long upTo) {
        Store root = lineage.root();
        String base = lineage.base();
        int[] identities = lineage.identities();
        int me = identities[g.rank()];
        Mono<GrowPlan> plan = g.rank() == 0
                ? GrowPlanner.decide(root, base, lineage.reserved() + 1, identities, lineage.handledTickets(), upTo,
                state.fingerprint(), g.flightRecorder().job(), 0, g.options().connectTimeout())
                : GrowPlanner.adopt(root, base, upTo, g.options().connectTimeout());
        return plan.onErrorMap(e -> !(e instanceof CollectiveException), e -> new CollectiveException("join", g.rank(),
                -1, CollectiveException.NO_PEER, "the decision on the join tickets up to " + upTo + " of group '" + base
                + "' was not made or read through store " + root + ": " + e, e)).flatMap(p -> {
            if (!p.grows()) {
                lineage.handled(p.handled());
                return Mono.just(false);
            }
            GroupOptions options = g.options().withGroupId(base);
            return connect(root, p, me, options)
                    .map(next -> {
                        lineage.leaving();
                        next.continues(lineage.grown(p), g.leave());
                        group = next;
                        log.info("group '{}': generation {} with {} (joined: {})", base, p.generation(),
                                Arrays.toString(p.members()), Arrays.toString(p.joined()));
                        return next;
                    })
                    .onErrorResume(e -> {
                        lineage.burn(p.generation());
                        lineage.handled(p.handled());
                        log.warn("group '{}' rank {}: generation {} with joiners {} did not connect ({}); the group "
                                + "goes on without them", base, g.rank(), p.generation(), Arrays.toString(p.joined()),
                                e.toString());
                        return Mono.empty();
                    })
                    .flatMap(next -> StateTransfer.run(next, source(p.members(), p.joined()), state, false)
                            .thenReturn(true))
                    .defaultIfEmpty(false);
        });
    }

    /** The rank that sends the state: the lowest identity that was a member before. */
    private static int source(int[] members, int[] joined) {
        for (int r = 0; r < members.length; r++) {
            if (Arrays.binarySearch(joined, members[r]) < 0) {
                return r;
            }
        }
        throw new IllegalStateException("a generation of joiners only has no state to hand over");
    }

    /** Connects {@code plan}'s generation, waiting at most {@code rc.elastic.connectTimeout} (and the group's own). */
    private static Mono<MeshProcessGroup> connect(Store root, GrowPlan plan, int identity, GroupOptions options) {
        java.time.Duration limit = TransportSettings.ELASTIC_CONNECT_TIMEOUT.get();
        GroupOptions o = limit.isZero() || limit.compareTo(options.connectTimeout()) >= 0 ? options
                : options.withConnectTimeout(limit);
        return MeshProcessGroup.connect(new PrefixStore("rc/" + plan.groupId() + "/", root), plan.rankOf(identity),
                plan.size(), o.withGroupId(plan.groupId()), plan.job());
    }

    private static GenerationEvent event(GrowPlan plan) {
        return new GenerationEvent(plan.groupId(), plan.generation(), GenerationEvent.Reason.GROW, plan.members(),
                new int[0], plan.joined());
    }
}
