package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.Quorum;
import io.reactivecollectives.core.QuorumLostException;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.CollectiveTimeoutException;
import io.reactivecollectives.core.PeerFailureException;
import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Decides, once and through the store, which ranks form the next generation of a group after a
 * failure, so that every member agrees and no excluded rank ever forms a group of its own.
 *
 * <h2>Protocol</h2>
 * For the move from generation {@code g} to {@code g+1} of the group {@code base}:
 * <ol>
 *   <li>If the {@link #membersKey(String, int) members key}
 *   ({@code rc/<base>/shrink/gen<g+1>/members}) exists, the decision was made (this rank arrives
 *   late, for instance it was stopped): the rank adopts it without publishing anything.</li>
 *   <li>Otherwise the rank publishes its view (the peers it saw die) under its
 *   {@link #viewKey(String, int, int) view key} ({@code .../gen<g+1>/view/<rank>}) and waits, up to
 *   the timeout, for the views of the peers it believes alive. A peer that some view reports dead is no longer
 *   waited for and its own view, if not yet read, is not counted; a peer whose view does not arrive
 *   within the timeout is left out. The wait ends early when a decision appears in the store.</li>
 *   <li>The rank proposes the members (itself and every peer whose view it read, less every rank any
 *   counted view reports dead) with {@link Store#compareSet} on the members key, expecting it absent.
 *   Exactly one proposal is ever written; every rank adopts the value the store holds afterwards,
 *   whoever wrote it.</li>
 *   <li><b>Quorum.</b> A rank that can count fewer members than the {@link Quorum} needs (by
 *   default a strict majority of generation {@code g}) proposes nothing: it adopts a decision already
 *   in the store, else fails with a {@link QuorumLostException}
 *   ({@code shrink rank 0: generation 1 needs 3 of generation 0's 4 ranks (quorum: majority); rank 0
 *   could count 1 alive (rank 0) and no decision was in store ...: it forms no group}). A rank that
 *   believes so many peers dead that it could never reach the quorum does not even publish its view:
 *   it publishes {@value #LEFT_MARKER} there instead, so that its peers count it out at once; and a
 *   rank whose wait leaves too few ranks alive for the quorum stops waiting for the other views.
 *   So a rank that was stopped, or cut off with a minority, never goes on alone, even where the
 *   store (in its own process, say) still answers it.</li>
 *   <li>A rank in the decided list gets its {@link ShrinkPlan} (new rank: its place in the list); a
 *   rank not in it fails with a {@link PeerFailureException}:
 *   {@code shrink rank 3: rank 3 was excluded from generation 1 by ranks 0-2 (...)}.</li>
 * </ol>
 *
 * <h2>Deadlines</h2>
 * Every store call is bounded: a call that does not wait answers within {@code timeout}, a wait for
 * a key within its wait plus one second; otherwise the plan fails with a
 * {@link CollectiveTimeoutException} naming the store (its {@code toString()}: the TCP store's
 * address), the call and the key. A store that fails a call fails the plan with a
 * {@link CollectiveException} naming the same. So a plan ends, one way or the other, within about
 * four times {@code timeout}. Nothing here blocks a thread.
 */
public final class ShrinkPlanner {

    private static final Logger log = LoggerFactory.getLogger(ShrinkPlanner.class);
    private static final String OP = "shrink";
    /** How long past its own wait a waiting store call may take before the store counts as unresponsive. */
    static final long GRACE_MILLIS = 1000;

    private ShrinkPlanner() {
    }

    /**
     * Decides (or adopts the existing decision on) the membership of generation
     * {@code currentGeneration + 1}, with the {@link Quorum#MAJORITY majority} quorum. Cold: nothing
     * happens until subscription.
     *
     * @param store             the store every rank of the group shares (not a per-generation prefix)
     * @param baseGroupId       the group's id without its generation suffix
     * @param currentGeneration the generation being left (0 for a group made by {@code connect})
     * @param rank              this rank in the current generation
     * @param size              the current generation's world size
     * @param seenDead          per rank of the current generation, whether this rank saw it die
     *                          (copied; this rank's own entry is ignored)
     * @param timeout           how long to wait for the peers' views, and the bound of each store call
     * @return the plan when this rank is a member; a {@link PeerFailureException} when it was
     *         excluded; a {@link CollectiveTimeoutException} or {@link CollectiveException} naming the
     *         store when the store does not answer or fails
     */
    public static Mono<ShrinkPlan> plan(Store store, String baseGroupId, int currentGeneration, int rank, int size,
                                        boolean[] seenDead, Duration timeout) {
        return plan(store, baseGroupId, currentGeneration, rank, size, seenDead, timeout, Duration.ZERO);
    }

    /**
     * {@link #plan(Store, String, int, int, int, boolean[], Duration)} that, every {@code reportEvery}
     * while it waits for the peers' views, says which ranks it still waits for
     * ({@code group 'g' rank 1: shrink to generation 1: waiting for ranks 2, 3 to publish their views
     * (10 s of 60 s)}), and while a store call goes unanswered, which call and which store
     * ({@code ... waiting for store TcpStore[10.0.0.1:29500] to answer check rc/g/shrink/gen1/members
     * (10 s of 60 s)}); zero for no reports. Majority quorum.
     *
     * @param store             the store every rank of the group shares
     * @param baseGroupId       the group's id without its generation suffix
     * @param currentGeneration the generation being left
     * @param rank              this rank in the current generation
     * @param size              the current generation's world size
     * @param seenDead          per rank of the current generation, whether this rank saw it die
     * @param timeout           how long to wait for the peers' views, and the bound of each store call
     * @param reportEvery       how often to report the wait; zero for never
     * @return the plan, or the errors of {@link #plan(Store, String, int, int, int, boolean[], Duration)}
     */
    public static Mono<ShrinkPlan> plan(Store store, String baseGroupId, int currentGeneration, int rank, int size,
                                        boolean[] seenDead, Duration timeout, Duration reportEvery) {
        return plan(store, baseGroupId, currentGeneration, rank, size, seenDead, timeout, reportEvery, Quorum.MAJORITY);
    }

    /**
     * {@link #plan(Store, String, int, int, int, boolean[], Duration, Duration)} keeping at least
     * {@code quorum} of the {@code size} members: a rank that can count fewer survivors (itself
     * included) writes no decision; it adopts one already written (it may be a member), else fails
     * with a {@link QuorumLostException} naming the generation, what it counted and what was needed.
     * A rank that believes too many peers dead to ever reach the quorum publishes no view either.
     *
     * @param store             the store every rank of the group shares
     * @param baseGroupId       the group's id without its generation suffix
     * @param currentGeneration the generation being left
     * @param rank              this rank in the current generation
     * @param size              the current generation's world size
     * @param seenDead          per rank of the current generation, whether this rank saw it die
     * @param timeout           how long to wait for the peers' views, and the bound of each store call
     * @param reportEvery       how often to report the wait; zero for never
     * @param quorum            the members the next generation must keep (the same on every rank)
     * @return the plan, the errors of {@link #plan(Store, String, int, int, int, boolean[], Duration)},
     *         or a {@link QuorumLostException}
     */
    public static Mono<ShrinkPlan> plan(Store store, String baseGroupId, int currentGeneration, int rank, int size,
                                        boolean[] seenDead, Duration timeout, Duration reportEvery, Quorum quorum) {
        return Mono.defer(() -> {
            Objects.requireNonNull(quorum, "quorum");
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(baseGroupId, "baseGroupId");
            Objects.requireNonNull(timeout, "timeout");
            if (size < 1 || rank < 0 || rank >= size || currentGeneration < 0) {
                throw new IllegalArgumentException("shrink: invalid rank " + rank + " of " + size + " in generation "
                        + currentGeneration);
            }
            if (seenDead == null || seenDead.length != size) {
                throw new IllegalArgumentException("shrink: seenDead must have one entry per rank (" + size + ")");
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("shrink: timeout must be positive, was " + timeout);
            }
            Run run = new Run(store, baseGroupId, currentGeneration + 1, rank, size, seenDead, timeout, reportEvery,
                    quorum);
            return run.existing()
                    .switchIfEmpty(Mono.defer(run::decide))
                    .map(run::adopt);
        });
    }

    /** The key under which {@code rank} publishes its view for the move to {@code generation}. */
    public static String viewKey(String baseGroupId, int generation, int rank) {
        return prefix(baseGroupId, generation) + "view/" + rank;
    }

    /** The key holding the decided members of {@code generation}, written once. */
    public static String membersKey(String baseGroupId, int generation) {
        return prefix(baseGroupId, generation) + "members";
    }

    /** The group id of {@code generation}: {@code <base>@gen<generation>}. */
    public static String groupId(String baseGroupId, int generation) {
        return baseGroupId + "@gen" + generation;
    }

    private static String prefix(String baseGroupId, int generation) {
        return "rc/" + baseGroupId + "/shrink/gen" + generation + "/";
    }

    /** {@code rank 2}, {@code ranks 0-2}, {@code ranks 0, 2-4}: ascending ranks, runs shortened. */
    static String describeRanks(int[] ranks) {
        StringBuilder b = new StringBuilder(ranks.length == 1 ? "rank " : "ranks ");
        for (int i = 0; i < ranks.length; ) {
            int j = i;
            while (j + 1 < ranks.length && ranks[j + 1] == ranks[j] + 1) {
                j++;
            }
            b.append(i == 0 ? "" : ", ").append(ranks[i]);
            if (j > i) {
                b.append('-').append(ranks[j]);
            }
            i = j + 1;
        }
        return b.toString();
    }

    /**
     * What a rank that leaves without a view (it could count no quorum) publishes at its view key, so
     * that its peers stop waiting for its view at once instead of at their timeout.
     */
    static final String LEFT_MARKER = "left";
    /** The view of a rank that left: {@link #LEFT_MARKER}. */
    private static final int[] LEFT = new int[0];

    /** A peer's view: the ranks it saw die, {@link #LEFT} when it left, or null when it published none in time. */
    private record View(int rank, int[] dead) {
    }

    /** One rank's planning; its arrays are touched only by the serialized view stream and what follows it. */
    private static final class Run {
        private final Store store;
        private final String base;
        private final int generation;
        private final int rank;
        private final int size;
        private final Duration timeout;
        private final Duration reportEvery;
        private final Quorum quorum;
        private final int needed;
        private final String membersKey;
        /** The peers whose view is still awaited (read by the wait reports' thread). */
        private final java.util.Set<Integer> awaited = new java.util.concurrent.ConcurrentSkipListSet<>();
        private final boolean[] dead;
        private final boolean[] viewed;
        private final boolean[] ownSeen;
        /** Ranks found dead while waiting: their pending view waits stop. */
        private final Sinks.Many<Integer> foundDead = Sinks.many().replay().all();
        /** Emitted once too few ranks are left alive for the quorum: no view awaited could change that. */
        private final Sinks.Empty<Void> noQuorum = Sinks.empty();

        Run(Store store, String base, int generation, int rank, int size, boolean[] seenDead, Duration timeout,
            Duration reportEvery, Quorum quorum) {
            this.reportEvery = reportEvery;
            this.quorum = quorum;
            this.needed = quorum.required(size);
            this.store = store;
            this.base = base;
            this.generation = generation;
            this.rank = rank;
            this.size = size;
            this.timeout = timeout;
            this.membersKey = membersKey(base, generation);
            this.dead = new boolean[size];
            this.viewed = new boolean[size];
            this.ownSeen = new boolean[size];
            for (int p = 0; p < size; p++) {
                ownSeen[p] = p != rank && seenDead[p];
                dead[p] = ownSeen[p];
            }
            viewed[rank] = true;
        }

        /** The decision already in the store, or empty. */
        Mono<byte[]> existing() {
            return bounded("check", membersKey, store.check(List.of(membersKey)), timeout)
                    .flatMap(present -> present
                            ? bounded("get", membersKey, store.get(membersKey, timeout), waitBound(timeout))
                            : Mono.empty());
        }

        /** Publishes this rank's view, reads the others', proposes a decision; emits the one the store holds. */
        Mono<byte[]> decide() {
            int[] reachable = java.util.stream.IntStream.range(0, size).filter(p -> !dead[p]).toArray();
            String mine = viewKey(base, generation, rank);
            if (reachable.length < needed) {
                // no view, it could only mislead the others; the marker that it left ends their wait for one
                QuorumLostException lost = quorumLost(reachable, "alive");
                return bounded("set", mine, store.set(mine, LEFT_MARKER.getBytes(StandardCharsets.UTF_8)), timeout)
                        .onErrorResume(e -> Mono.empty()).then(Mono.error(lost));
            }
            return bounded("set", mine, store.set(mine, encode(ownSeen)), timeout)
                    .thenMany(views())
                    .doOnNext(this::absorb)
                    .then(Mono.defer(this::propose));
        }

        private Flux<View> views() {
            List<Integer> believedAlive = new ArrayList<>();
            for (int p = 0; p < size; p++) {
                if (p != rank && !dead[p]) {
                    believedAlive.add(p);
                }
            }
            // a decision written meanwhile ends the wait (the compareSet then returns it)
            Mono<byte[]> decided = store.get(membersKey, timeout).onErrorResume(e -> Mono.never());
            return Flux.defer(() -> {
                awaited.addAll(believedAlive);
                long start = System.nanoTime();
                reactor.core.Disposable report = WaitReports.every(reportEvery, () -> reportWait(start));
                return Flux.fromIterable(believedAlive)
                        .flatMap(p -> Mono.firstWithSignal(viewOf(p),
                                foundDead.asFlux().filter(d -> d == p).next().then(Mono.<View>empty()))
                                        .doFinally(s -> awaited.remove(p)),
                                Math.max(1, believedAlive.size()))
                        .takeUntilOther(decided)
                        .takeUntilOther(noQuorum.asMono().thenReturn(true))
                        .doFinally(s -> report.dispose());
            });
        }

        /** {@code group 'g' rank 1: shrink to generation 1: waiting for ranks 2, 3 to publish their views (10 s of 60 s)}. */
        private void reportWait(long start) {
            List<Integer> still = new ArrayList<>(awaited);
            if (!still.isEmpty()) {
                Notices.warn(log, "group '" + base + "' rank " + rank + ": shrink to generation " + generation
                        + ": waiting for " + WaitReports.ranks(still) + " to publish " + (still.size() == 1 ? "its view"
                        : "their views") + " of the failure (" + WaitReports.duration(System.nanoTime() - start)
                        + " of " + WaitReports.duration(timeout.toNanos()) + ")");
            }
        }

        private Mono<View> viewOf(int p) {
            String key = viewKey(base, generation, p);
            return unreported("get", key, store.get(key, timeout)
                    .map(bytes -> new View(p, decode(bytes)))
                    .onErrorResume(StoreTimeoutException.class, e -> Mono.just(new View(p, null))), waitBound(timeout));
        }

        private void absorb(View v) {
            if (dead[v.rank()]) {
                return; // a view from a rank already found dead does not count
            }
            if (v.dead() == LEFT) {
                Notices.warn(log, "shrink rank " + rank + ": rank " + v.rank() + " left generation " + (generation - 1)
                        + ": it could count no quorum (" + quorum + ") of alive ranks");
                markDead(v.rank());
                return;
            }
            if (v.dead() == null) {
                Notices.warn(log, "shrink rank " + rank + ": rank " + v.rank() + " published no view within "
                        + timeout.toMillis() + " ms; it is left out of generation " + generation);
                markDead(v.rank());
                return;
            }
            viewed[v.rank()] = true;
            for (int d : v.dead()) {
                markDead(d);
            }
        }

        private void markDead(int d) {
            if (!dead[d]) {
                dead[d] = true;
                foundDead.tryEmitNext(d);
                if (java.util.stream.IntStream.range(0, size).filter(p -> !dead[p]).count() < needed) {
                    noQuorum.tryEmitEmpty();
                }
            }
        }

        private Mono<byte[]> propose() {
            int[] members = java.util.stream.IntStream.range(0, size).filter(p -> viewed[p] && !dead[p]).toArray();
            if (members.length < needed) {
                // the minority side (or every rank seen to die): nothing to propose, only a decision to adopt
                return existing().switchIfEmpty(Mono.error(() -> quorumLost(members, "surviving")));
            }
            byte[] proposal = ("members=" + join(members) + ";decider=" + rank).getBytes(StandardCharsets.UTF_8);
            return bounded("compareSet", membersKey, store.compareSet(membersKey, new byte[0], proposal), timeout)
                    .doOnNext(held -> {
                        if (Arrays.equals(held, proposal)) {
                            log.info("shrink rank {}: decided generation {} of '{}': {}", rank, generation, base,
                                    describeRanks(members));
                        }
                    });
        }

        /** {@code generation 1 needs 3 of generation 0's 4 ranks (quorum: majority); rank 0 could count 1 ...}. */
        private QuorumLostException quorumLost(int[] counted, String as) {
            String why = "generation " + generation + " needs " + needed + " of generation " + (generation - 1) + "'s "
                    + size + " ranks (quorum: " + quorum + "); rank " + rank + " could count " + counted.length + " "
                    + as + (counted.length == 0 ? "" : " (" + describeRanks(counted) + ")")
                    + " and no decision was in store " + store + ": it forms no group";
            Notices.warn(log, "shrink rank " + rank + ": " + why);
            return new QuorumLostException(rank, generation, counted.length, needed, why);
        }

        ShrinkPlan adopt(byte[] decision) {
            String text = new String(decision, StandardCharsets.UTF_8);
            int[] members;
            int decider;
            try {
                String[] parts = text.split(";");
                if (parts.length != 2 || !parts[0].startsWith("members=") || !parts[1].startsWith("decider=")) {
                    throw new IllegalArgumentException("not members=...;decider=...");
                }
                members = Arrays.stream(parts[0].substring("members=".length()).split(","))
                        .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
                decider = Integer.parseInt(parts[1].substring("decider=".length()));
                for (int i = 0; i < members.length; i++) {
                    if (members[i] < 0 || members[i] >= size || (i > 0 && members[i] <= members[i - 1])) {
                        throw new IllegalArgumentException("members not ascending ranks of " + size);
                    }
                }
            } catch (RuntimeException e) {
                throw new CollectiveException(OP, rank, -1, CollectiveException.NO_PEER, "the decision for generation "
                        + generation + " at " + membersKey + " in store " + store + " is malformed: '" + text + "'", e);
            }
            int newRank = Arrays.binarySearch(members, rank);
            if (newRank < 0) {
                String why = "rank " + rank + " was excluded from generation " + generation + " by "
                        + describeRanks(members) + " (rank " + decider + " decided, through store " + store
                        + "); it forms no group";
                Notices.warn(log, "shrink rank " + rank + ": " + why);
                throw new PeerFailureException(OP, rank, -1, CollectiveException.NO_PEER, why, null);
            }
            return new ShrinkPlan(generation, groupId(base, generation), members, newRank, decider);
        }

        /**
         * {@code call} bounded by {@code deadline}; its failures name the store, the call and the key.
         * Every {@code reportEvery} while it has no answer it says so: {@code group 'g' rank 1: shrink
         * to generation 1: waiting for store TcpStore[10.0.0.1:29500] to answer check
         * rc/g/shrink/gen1/members (10 s of 2 min 0 s)}.
         */
        private <T> Mono<T> bounded(String call, String key, Mono<T> mono, Duration deadline) {
            return Mono.defer(() -> {
                long start = System.nanoTime();
                reactor.core.Disposable report = WaitReports.every(reportEvery, () -> Notices.warn(log, "group '"
                        + base + "' rank " + rank + ": shrink to generation " + generation + ": waiting for store "
                        + store + " to answer " + call + " " + key + " (" + WaitReports.duration(System.nanoTime()
                        - start) + " of " + WaitReports.duration(deadline.toNanos()) + ")"));
                return unreported(call, key, mono, deadline).doFinally(s -> report.dispose());
            });
        }

        /** {@link #bounded} without the reports: for the waits {@link #views()} reports itself. */
        private <T> Mono<T> unreported(String call, String key, Mono<T> mono, Duration deadline) {
            return mono
                    .timeout(deadline, Mono.error(() -> new CollectiveTimeoutException(OP, rank, -1,
                            CollectiveException.NO_PEER, deadline, "store " + store + " did not answer " + call + " "
                            + key + " within " + deadline.toMillis() + " ms (generation " + generation + ")")))
                    .onErrorMap(e -> !(e instanceof CollectiveException),
                            e -> new CollectiveException(OP, rank, -1, CollectiveException.NO_PEER, "store " + store
                                    + " failed " + call + " " + key + " (generation " + generation + "): " + e, e));
        }

        private static Duration waitBound(Duration wait) {
            return wait.plusMillis(GRACE_MILLIS);
        }

        private static byte[] encode(boolean[] ranks) {
            return join(java.util.stream.IntStream.range(0, ranks.length).filter(p -> ranks[p]).toArray())
                    .getBytes(StandardCharsets.UTF_8);
        }

        private int[] decode(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            return LEFT_MARKER.equals(text) ? LEFT : decode(text);
        }

        /** Comma-separated ranks; ranks outside the group are dropped. */
        private int[] decode(String list) {
            if (list.isBlank()) {
                return new int[0];
            }
            return Arrays.stream(list.split(",")).mapToInt(s -> Integer.parseInt(s.trim()))
                    .filter(p -> p >= 0 && p < size).toArray();
        }

        private static String join(int[] ranks) {
            StringBuilder b = new StringBuilder();
            for (int r : ranks) {
                b.append(b.length() == 0 ? "" : ",").append(r);
            }
            return b.toString();
        }
    }
}
