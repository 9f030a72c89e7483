package io.reactivecollectives.transport;

import io.reactivecollectives.core.CollectiveArguments;
import io.reactivecollectives.core.CollectiveException;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.rendezvous.PrefixStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import io.reactivecollectives.transport.mesh.Connections;
import io.reactivecollectives.transport.mesh.MeshStartException;
import io.reactivecollectives.transport.runtime.GroupRuntime;
import io.reactivecollectives.transport.settings.TransportSettings;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The subgroups one rank's group made (c10d's new_group); closed with it. By default a subgroup's
 * frames travel over this group's connections ({@link Connections#carry}), told apart by its group
 * id: it opens no socket and no shared memory, and starts with a few store operations per rank
 * ({@link #allCarried}). With {@code rc.subgroups.shareConnections=false} each subgroup connects a
 * mesh of its own through the store instead.
 */
final class Subgroups {

    /** Store key (under the subgroup's prefix) each member sets once its frames are carried. */
    private static final String CARRIED = "rc/carried/";
    private static final String ALL_CARRIED = "rc/carried/all";
    /** Store key (under the subgroup's prefix): why a member gave up waiting for the others. */
    private static final String GAVE_UP = "rc/carried/gaveUp";
    /** Store keys (under the subgroup's prefix): the members the first member named, and why the lists differ. */
    private static final String MEMBERS = "rc/members";
    private static final String DISAGREED = "rc/members/disagreed";

    private final AtomicInteger made = new AtomicInteger();
    private final List<ProcessGroup> children = new CopyOnWriteArrayList<>();

    /**
     * How a group makes a subgroup whose frames travel over its own connections.
     *
     * @param <G> the group type it emits
     */
    @FunctionalInterface
    interface Carry<G extends ProcessGroup> {

        /**
         * A group of {@code members} (ranks of the parent) over {@code parent}, as {@code rank} of them.
         *
         * @param parent  the parent's connections
         * @param store   the subgroup's store (a prefix of the parent's)
         * @param rank    this rank in the subgroup
         * @param members the subgroup's ranks, as the parent's, ascending
         * @param options the subgroup's options
         * @param job     the job it belongs to
         * @return a cold {@code Mono} emitting the group once every member carries it
         */
        Mono<G> carry(Connections parent, Store store, int rank, int[] members, GroupOptions options, String job);
    }

    /**
     * A group of {@code ranks} meeting under {@code <groupId>/<k>} for the k-th call: carried over the
     * parent's connections through {@code carry}, or (with {@code rc.subgroups.shareConnections=false},
     * or before the parent is connected) joined through {@code join}; empty on a rank outside.
     *
     * @param <G> the group type {@code join} emits
     */
    <G extends ProcessGroup> Mono<ProcessGroup> newGroup(GroupRuntime runtime, Store store, GroupOptions options,
                                                         List<Integer> ranks, GroupJoin<G> join, Carry<G> carry) {
        return Mono.defer(() -> {
            int[] members = CollectiveArguments.newGroup(ranks, runtime.size());
            CollectiveException refused = runtime.refusal("newGroup");
            if (refused != null) {
                return Mono.error(refused);
            }
            String id = options.groupId() + "/" + made.getAndIncrement();
            int index = Arrays.binarySearch(members, runtime.rank());
            if (index < 0) {
                return Mono.empty();
            }
            Store own = new PrefixStore(id, store);
            GroupOptions subOptions = options.withGroupId(id);
            String job = runtime.observer().recorder().job();
            Connections parent = runtime.mesh();
            Mono<G> made = parent != null && TransportSettings.SUBGROUPS_SHARE_CONNECTIONS.get()
                    ? carry.carry(parent, own, index, members, subOptions, job)
                    : join.join(own, index, members.length, subOptions, job);
            return agreeOnMembers(own, id, members, runtime.rank()).then(made)
                    .doOnNext(children::add).map(g -> (ProcessGroup) g);
        });
    }

    /**
     * Fails when this member's list differs from the one the first member of the k-th call named
     * (then the others waiting for the subgroup fail too, through {@link #DISAGREED}), instead of
     * two ranks taking one place and the subgroup failing only at its first collective.
     */
    static Mono<Void> agreeOnMembers(Store store, String id, int[] members, int parentRank) {
        byte[] mine = Arrays.toString(members).getBytes(StandardCharsets.UTF_8);
        return store.compareSet(MEMBERS, new byte[0], mine).flatMap(held -> {
            if (Arrays.equals(held, mine)) {
                return Mono.<Void>empty();
            }
            String why = "newGroup: group '" + id + "': rank " + parentRank + " of the parent was called with ranks "
                    + Arrays.toString(members) + ", an earlier member with " + new String(held, StandardCharsets.UTF_8)
                    + " (the k-th newGroup or split must name the same ranks on every member)";
            return store.set(DISAGREED, why.getBytes(StandardCharsets.UTF_8))
                    .then(Mono.<Void>error(new IllegalArgumentException(why)));
        });
    }

    /**
     * Completes once every one of the members has its frames carried (each sets its key and counts
     * itself; the last sets the key all wait for): three store operations per rank. Fails after
     * {@code timeout} naming the members that never came, by their rank in the subgroup and in the
     * parent. A member whose wait runs out spoils the count (adds {@code size}): if every member had
     * counted itself and nobody spoilt it before, all of them route the subgroup and this one takes
     * it too (the last one's key was on its way), as does one that finds another spoilt it too with
     * every member counted, once that key comes; else it says why under {@link #GAVE_UP}, and a
     * member counting itself later finds the count spoilt and fails at once with that reason instead
     * of getting a subgroup the others closed. A member whose wait is cancelled spoils the count too.
     *
     * @param members the subgroup's ranks, as the parent's
     */
    static Mono<Void> allCarried(Store store, String groupId, int rank, int[] members, Duration timeout) {
        int size = members.length;
        if (size == 1) {
            return Mono.empty();
        }
        String who = "newGroup: group '" + groupId + "' rank " + rank + " of " + size + " (rank " + members[rank]
                + " of the parent): ";
        byte[] yes = "1".getBytes(StandardCharsets.UTF_8);
        return store.set(CARRIED + rank, yes)
                .then(store.add(CARRIED + "count", 1))
                .flatMap(n -> n == size ? store.set(ALL_CARRIED, yes)
                        : n > size ? store.get(GAVE_UP, timeout).flatMap(why -> Mono.<Void>error(new MeshStartException(
                                who + "came after the others gave up waiting for it: "
                                        + new String(why, StandardCharsets.UTF_8), null)))
                        : Mono.<Void>empty())
                .then(Mono.firstWithSignal(store.await(List.of(ALL_CARRIED), timeout),
                        store.get(DISAGREED, timeout).flatMap(why -> Mono.<Void>error(
                                new IllegalArgumentException(new String(why, StandardCharsets.UTF_8))))))
                .timeout(timeout.plusSeconds(1))
                .onErrorResume(e -> e instanceof StoreTimeoutException || e instanceof TimeoutException,
                        e -> store.add(CARRIED + "count", size).onErrorReturn(0L).flatMap(spoilt -> spoilt == 2L * size
                                ? Mono.<Void>empty()   // all had counted, none gave up before: all route it, the last says so
                                : spoilt > 2L * size && spoilt % size == 0 ? afterAnotherSpoilt(store, who, members, timeout, e)
                                : gaveUp(store, who, members, timeout, e)))
                // cancelled (a caller's own timeout): the same for the members still to come, in the background
                .doOnCancel(() -> store.add(CARRIED + "count", size)
                        .then(store.set(GAVE_UP, (who + "its newGroup was cancelled before every member came")
                                .getBytes(StandardCharsets.UTF_8)))
                        .subscribe(x -> { }, ignored -> { }));
    }

    /**
     * Closes a subgroup given up before every member routes it: its connections first, at once, so
     * that no last words go out, which a member not routing it yet would take for a protocol error
     * and close the parent's connection over.
     */
    static void giveUp(Connections carried, ProcessGroup group) {
        carried.close();
        group.close();
    }

    /**
     * Every member had counted itself when this one spoilt the count, but another spoilt it before
     * (two waits that ran out together): whether every member had counted before that first spoil,
     * and so routes the subgroup, the last one's key tells, else the reason the first one gives.
     */
    private static Mono<Void> afterAnotherSpoilt(Store store, String who, int[] members, Duration timeout, Throwable e) {
        return Mono.firstWithSignal(store.await(List.of(ALL_CARRIED), timeout).thenReturn(true),
                        store.get(GAVE_UP, timeout).map(why -> false))
                .onErrorReturn(false)
                .flatMap(all -> all ? Mono.<Void>empty() : gaveUp(store, who, members, timeout, e));
    }

    /** Names the members that never came, says so under {@link #GAVE_UP} for those coming later, and fails. */
    private static Mono<Void> gaveUp(Store store, String who, int[] members, Duration timeout, Throwable e) {
        return missing(store, members.length).flatMap(absent -> {
            String why = who + (absent.isEmpty() ? "not every member started it" : "ranks " + absent
                    + " of the subgroup (ranks " + absent.stream().map(r -> members[r]).toList()
                    + " of the parent) never started it") + " within " + timeout.toMillis()
                    + " ms (every rank of the parent must call newGroup and split in the same order)";
            return store.set(GAVE_UP, why.getBytes(StandardCharsets.UTF_8)).onErrorResume(ignored -> Mono.empty())
                    .then(Mono.error(new MeshStartException(why, e)));
        });
    }

    private static Mono<List<Integer>> missing(Store store, int size) {
        return Flux.range(0, size)
                .concatMap(r -> store.check(List.of(CARRIED + r)).filter(b -> !b).map(b -> r))
                .collectList()
                .onErrorReturn(List.of());
    }

    void closeAll() {
        children.forEach(ProcessGroup::close);
    }
}
