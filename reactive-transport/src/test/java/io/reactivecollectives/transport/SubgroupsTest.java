package io.reactivecollectives.transport;

import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.transport.mesh.MeshStartException;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Subgroups#allCarried}, the store barrier a carried subgroup is handed out after, on one
 * store with the members played by the test: a member that times out just as the last one counted
 * itself, and members coming after one gave up.
 */
class SubgroupsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration TIMEOUT = Duration.ofMillis(300);
    private static final int[] MEMBERS = {1, 2, 3};

    /**
     * Every member had counted itself when this one's wait ran out (the last one's 'all carried' not
     * yet written): every member routes the subgroup, so this one gets it too instead of failing
     * while the others use it.
     */
    @Test
    void aMemberTimingOutJustAsTheLastCountedItselfGetsTheSubgroup() {
        Store store = new HashStore();
        StepVerifier.create(Subgroups.allCarried(store, "g/0", 0, MEMBERS, TIMEOUT))
                .then(() -> store.add("rc/carried/count", 2).block(WAIT))   // members 1 and 2, the last still writing
                .expectComplete()
                .verify(WAIT);
    }

    /**
     * Two members' waits run out together just as the last one counted itself: the first to spoil
     * the count finds it at exactly twice the size, the second at three times; both had every member
     * counted before any spoil, so both get the subgroup every member routes (before, the second
     * failed and closed it while the others used it).
     */
    @Test
    void twoMembersTimingOutJustAsTheLastCountedItselfBothGetTheSubgroup() {
        Store store = new HashStore();
        Duration timeout = Duration.ofSeconds(1);
        reactor.core.publisher.Mono<List<Object>> both = reactor.core.publisher.Flux.range(0, 2)
                .flatMap(rank -> Subgroups.allCarried(store, "g/0", rank, MEMBERS, timeout).<Object>thenReturn("ok")
                        .onErrorResume(e -> reactor.core.publisher.Mono.just(e.toString())), 2)
                .collectList().cache();
        both.subscribe();
        store.set("rc/carried/2", "1".getBytes()).block(WAIT);
        store.add("rc/carried/count", 1).block(WAIT);         // member 2 counts itself (the count is the size)...
        store.add("rc/carried/count", 0).delayElement(timeout.multipliedBy(3).dividedBy(2))
                .then(store.set("rc/carried/all", "1".getBytes())).block(WAIT); // ...its key lands after both gave up
        assertTrue(List.of("ok", "ok").equals(both.block(WAIT)), String.valueOf(both.block(WAIT)));
    }

    /** A member that gave up spoils the count: one coming later fails at once with its reason. */
    @Test
    void aMemberComingAfterOneGaveUpFailsWithItsReason() {
        Store store = new HashStore();
        StepVerifier.create(Subgroups.allCarried(store, "g/0", 0, MEMBERS, TIMEOUT))
                .expectErrorSatisfies(e -> assertTrue(e instanceof MeshStartException
                        && e.getMessage().contains("ranks [1, 2] of the subgroup (ranks [2, 3] of the parent) never started it"),
                        e.toString()))
                .verify(WAIT);
        for (int rank : new int[] {1, 2}) {
            long t0 = System.nanoTime();
            StepVerifier.create(Subgroups.allCarried(store, "g/0", rank, MEMBERS, TIMEOUT))
                    .expectErrorSatisfies(e -> assertTrue(e instanceof MeshStartException
                            && e.getMessage().contains("rank " + rank + " of 3 (rank " + MEMBERS[rank] + " of the parent): "
                            + "came after the others gave up waiting for it"), e.toString()))
                    .verify(WAIT);
            assertTrue(System.nanoTime() - t0 < TIMEOUT.toNanos(), "member " + rank + " failed at once");
        }
        assertTrue(Boolean.FALSE.equals(store.check(List.of("rc/carried/all")).block(WAIT)), "nobody was handed the subgroup");
    }

    /**
     * A member whose wait is cancelled (a caller's own timeout) closed its subgroup: the members
     * coming after fail naming it instead of getting a subgroup it does not route.
     */
    @Test
    void membersComingAfterOneCancelledItsWaitFailNamingIt() {
        Store store = new HashStore();
        Subgroups.allCarried(store, "g/0", 0, MEMBERS, WAIT).subscribe().dispose();
        for (int rank : new int[] {1, 2}) {
            StepVerifier.create(Subgroups.allCarried(store, "g/0", rank, MEMBERS, TIMEOUT))
                    .expectErrorSatisfies(e -> assertTrue(e instanceof MeshStartException && e.getMessage().contains(
                            "came after the others gave up waiting for it: newGroup: group 'g/0' rank 0 of 3 (rank 1 of the "
                                    + "parent): its newGroup was cancelled"), e.toString()))
                    .verify(WAIT);
        }
    }
}
