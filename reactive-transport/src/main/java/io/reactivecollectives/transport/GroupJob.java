package io.reactivecollectives.transport;

import io.reactivecollectives.core.observe.FlightRecorder;
import io.reactivecollectives.core.rendezvous.Store;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The job a group's ranks agree on as they connect, which names the directory of their
 * flight-recorder dumps ({@link FlightRecorder#dumpDirectory()}), so that two jobs never overwrite
 * each other's dumps, even with the same group id and dump directory. Rank 0 writes a fresh id
 * ({@link FlightRecorder#newJobId()}: start time and a random part) to {@code rc/<group>/job} before
 * its mesh starts (a value left by an earlier job in a long-lived store is overwritten); every other
 * rank reads it once its mesh is up, which is after rank 0 wrote it (rank 0 is then connected to
 * it). Subgroups and later generations keep their parent's job. The cost is one store call per rank
 * at connect time, none per collective.
 */
final class GroupJob {

    private GroupJob() {
    }

    /** The store key holding the job of {@code groupId}. */
    static String key(String groupId) {
        return "rc/" + groupId + "/job";
    }

    /**
     * The job known before the mesh starts: {@code inherited} when given, else, on rank 0, a fresh id
     * written to the store (alone in its world: not written); empty for the other ranks.
     */
    static Mono<String> before(Store store, String groupId, int rank, int worldSize, String inherited) {
        if (inherited != null) {
            return Mono.just(inherited);
        }
        if (rank != 0) {
            return Mono.empty();
        }
        String id = FlightRecorder.newJobId();
        return worldSize == 1 ? Mono.just(id)
                : store.set(key(groupId), id.getBytes(StandardCharsets.UTF_8)).thenReturn(id);
    }

    /**
     * The job rank 0 wrote, read once the mesh is up; should the store not give it, an id of this
     * rank's own (the dumps then land apart from the others', still not overwriting any).
     */
    static Mono<String> after(Store store, String groupId, Duration timeout) {
        return store.get(key(groupId), timeout)
                .map(b -> new String(b, StandardCharsets.UTF_8))
                .onErrorResume(e -> Mono.empty())
                .switchIfEmpty(Mono.fromSupplier(FlightRecorder::newJobId));
    }
}
