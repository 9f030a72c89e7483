package io.reactivecollectives.transport.failure;

import io.reactivecollectives.core.rendezvous.HashStore;
import io.reactivecollectives.core.testing.StandardErrorCapture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link GrowPlanner#request}'s wait reports while the store does not answer. */
@Tag("exclusive")   // bounds a wait by the wall clock: runs alone (reactive-transport/pom.xml)
class GrowPlannerReportsTest {

    /**
     * The audit: a joiner whose (replicated) store had no majority was silent until its ticket's
     * {@code add} failed, 66-99 s later; the reports began only once the ticket was taken.
     */
    @Test
    void aJoinerWhoseTicketTheStoreDoesNotAnswerSaysSo() throws Exception {
        HashStore store = new HashStore(Duration.ofSeconds(30));
        FrozenStore frozen = new FrozenStore(store, Set.of("add"));
        String text;
        try (StandardErrorCapture err = new StandardErrorCapture()) {
            Disposable asking = GrowPlanner.request(frozen, "stuck", 1, "fp", Duration.ofSeconds(4),
                    Duration.ofMillis(300)).subscribe(a -> { }, e -> { });
            Thread.sleep(1_300);
            asking.dispose();
            text = err.text();
        } finally {
            store.close();
        }
        String line = "join of group 'stuck' as identity 1: waiting for store FrozenStore[10.9.8.7:29500] to answer add "
                + "rc/stuck/";
        assertTrue(text.lines().filter(l -> l.contains(line) && l.contains("tickets, the ticket that asks to join ("))
                .count() >= 2, "the joiner said that its ticket waits:\n" + text);
    }
}
