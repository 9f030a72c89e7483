package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.rendezvous.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * A rank's claim of its address key in the store, which makes a second process started as the same
 * rank fail at once instead of leaving the group waiting: the key is set with {@code compareSet}
 * from absent, so of two processes of one rank only one publishes. The other dials the address it
 * found with a HELLO from the same rank; a live holder answers with the rejection
 * {@code rank 0 joined twice: ... (addresses A and B)} and fails its own start too (see
 * {@link MeshHandshake}). A holder that cannot be reached (refused, closed without an answer,
 * silent for the probe's timeout) is a leftover of an earlier process, and its key is taken over.
 * A value starting with {@link #REFUSED} is the mark a holder leaves when it found a duplicate:
 * ranks that read it fail with its text, and a later process of the rank may take it over.
 */
final class RankClaim {

    private static final Logger log = LoggerFactory.getLogger(RankClaim.class);

    /** Prefix of an address key's value that says why the rank cannot be reached. */
    static final String REFUSED = "refused=";

    private RankClaim() {
    }

    /** Claims {@code mesh}'s address key; fails with a {@link MeshStartException} when another live process holds it. */
    static Mono<Void> claim(Store store, Mesh mesh) {
        String key = Mesh.addressKey(mesh.options().groupId(), mesh.rank());
        byte[] mine = mesh.publishedAddress().getBytes(StandardCharsets.UTF_8);
        return store.compareSet(key, new byte[0], mine).flatMap(now -> {
            if (Arrays.equals(now, mine)) {
                return Mono.empty();
            }
            String holder = new String(now, StandardCharsets.UTF_8);
            Mono<Void> probe = holder.startsWith(REFUSED) ? Mono.empty()
                    : Mono.defer(() -> probe(mesh, holder)).subscribeOn(BlockingScheduler.get());
            return probe.then(Mono.defer(() -> takeOver(store, key, now, mine, mesh, holder)));
        });
    }

    private static Mono<Void> takeOver(Store store, String key, byte[] stale, byte[] mine, Mesh mesh, String holder) {
        log.info("{}: taking over the address key of a process no longer there ({})", mesh.describe(), holder);
        return store.compareSet(key, stale, mine).flatMap(now -> Arrays.equals(now, mine) ? Mono.<Void>empty()
                : Mono.error(new MeshStartException(mesh.describe() + ": rank " + mesh.rank() + " joined twice: group '"
                        + mesh.options().groupId() + "' has two processes started as rank " + mesh.rank() + " (addresses "
                        + new String(now, StandardCharsets.UTF_8) + " and " + mesh.publishedAddress() + ")", null)));
    }

    /** How long a probe waits for the holder's answer before it counts the holder as gone. */
    static Duration probeTimeout(MeshOptions options) {
        Duration cap = Duration.ofSeconds(5);
        return options.connectTimeout().compareTo(cap) < 0 ? options.connectTimeout() : cap;
    }

    /** Marks the key of a rank that found a duplicate of itself, if it still holds its own address (fire and forget). */
    static void markRefused(Store store, Mesh mesh, String why) {
        String key = Mesh.addressKey(mesh.options().groupId(), mesh.rank());
        store.compareSet(key, mesh.publishedAddress().getBytes(StandardCharsets.UTF_8),
                        (REFUSED + why).getBytes(StandardCharsets.UTF_8))
                .subscribe(null, e -> log.debug("{}: could not mark the address key: {}", mesh.describe(), e.toString()));
    }

    /**
     * Says HELLO as this rank to {@code holder}, the address another process published for it:
     * fails with a {@link MeshStartException} when that process answers (it is alive: this rank
     * joined twice); completes when it cannot be reached (a leftover). On a thread that may block.
     */
    static Mono<Void> probe(Mesh mesh, String holder) {
        MeshHandshake.Connect hs = new MeshHandshake.Connect(mesh, mesh.rank());
        return mesh.sockets().dial(holder, hs, c -> c.channel().writeAndFlush(hs.hello(c.channel())))
                .flatMap(conn -> hs.done.asMono().doFinally(s -> conn.dispose()))
                .then(Mono.<Void>error(() -> new MeshStartException(mesh.describe() + ": rank " + mesh.rank()
                        + " joined twice: the process at " + holder + " accepted a second rank " + mesh.rank(), null)))
                .timeout(probeTimeout(mesh.options()))
                .onErrorResume(e -> !(e instanceof MeshStartException), e -> {
                    log.debug("{}: the earlier holder of this rank at {} is gone ({})", mesh.describe(), holder, e.toString());
                    return Mono.empty();
                });
    }
}
