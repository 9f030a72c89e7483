package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.core.rendezvous.Store;
import io.reactivecollectives.core.rendezvous.StoreTimeoutException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The rendezvous of a starting mesh in O(N) store operations in all, not O(N^2) (issue 44): every
 * rank claims its own address key once ({@link RankClaim}); rank 0 gathers those keys (one
 * {@code await} and one {@code multiGet}) and publishes them as one key, the address book; every
 * other rank reads rank 0's address key, connects to rank 0, then reads the book once and connects
 * to the lower ranks it lists.
 *
 * <p>The book's key names rank 0's process (a hash of the address it published, so a book left by
 * an earlier group under the same id is never read) and is read only once the connection to rank 0
 * passed its handshake: the address that reached rank 0 is the live one. Rank 0 publishes the book
 * when every rank has published its address, or after half the connect timeout with the addresses
 * published by then (an absent rank's line is empty); a rank that finds a peer's line empty reads
 * that peer's address key, waiting for it, as does every retry of a refused connection (the book may
 * hold the address of an earlier process of a rank that its new process has since taken over). So a
 * straggler still joins, the others still connect to every rank that is there, and the start-up
 * timeout still names just the ranks that never appeared.
 */
final class MeshAddressBook {

    private MeshAddressBook() {
    }

    /** The key of the address book of {@code groupId} that rank 0's process at {@code rank0Address} publishes. */
    static String key(String groupId, String rank0Address) {
        return "rc/" + groupId + "/mesh/book/"
                + UUID.nameUUIDFromBytes(rank0Address.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * On rank 0: waits for every other rank's address key, up to half the connect timeout, and
     * publishes the book (with empty lines for the ranks still absent then).
     */
    static Mono<Void> gather(Store store, Mesh mesh) {
        String group = mesh.options().groupId();
        List<String> keys = new ArrayList<>();
        for (int p = 1; p < mesh.world(); p++) {
            keys.add(Mesh.addressKey(group, p));
        }
        Duration wait = mesh.options().connectTimeout().dividedBy(2);
        return store.await(keys, wait)
                .then(Mono.defer(() -> store.multiGet(keys)))
                .onErrorResume(StoreTimeoutException.class, e -> present(store, keys))
                .flatMap(values -> {
                    for (int p = 1; p <= values.size(); p++) {   // every rank's host, before any connects
                        byte[] v = values.get(p - 1);
                        if (v.length > 0) {
                            mesh.noteAddress(p, new String(v, StandardCharsets.UTF_8));
                        }
                    }
                    return store.set(key(group, mesh.publishedAddress()), encode(mesh.publishedAddress(), values));
                });
    }

    /** The values of those of {@code keys} that exist now (empty for the others), one look each, without waiting. */
    private static Mono<List<byte[]>> present(Store store, List<String> keys) {
        return Flux.fromIterable(keys)
                .flatMapSequential(k -> store.get(k, Duration.ZERO)
                        .onErrorResume(StoreTimeoutException.class, e -> Mono.just(new byte[0])), 8)
                .collectList();
    }

    /**
     * On a rank above 0, once connected to rank 0 at {@code rank0Address}: the book, one address per
     * rank (an empty one for a rank absent when it was written), waiting for it up to {@code timeout}.
     */
    static Mono<String[]> read(Store store, String groupId, String rank0Address, Duration timeout) {
        return store.get(key(groupId, rank0Address), timeout).map(MeshAddressBook::decode);
    }

    /**
     * For a mesh that connects on demand (which does not connect to rank 0 first): rank 0's book, read
     * once rank 0's key is there, every rank's address noted from it (the host identities tell the
     * ranks of this host without a connection).
     */
    static Mono<String[]> readAll(Store store, Mesh mesh) {
        return mesh.readAddress(0)
                .flatMap(a0 -> read(store, mesh.options().groupId(), a0, mesh.options().connectTimeout()))
                .doOnNext(book -> {
                    for (int p = 0; p < book.length && p < mesh.world(); p++) {
                        if (p != mesh.rank() && !book[p].isEmpty()) {
                            mesh.noteAddress(p, book[p]);
                        }
                    }
                });
    }

    /** Rank 0's address, then one line per other rank ({@code \n} in a value, never in an address, becomes a space). */
    static byte[] encode(String rank0Address, List<byte[]> others) {
        StringBuilder b = new StringBuilder(rank0Address);
        for (byte[] v : others) {
            b.append('\n').append(new String(v, StandardCharsets.UTF_8).replace('\n', ' '));
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The addresses of a book, by rank. */
    static String[] decode(byte[] book) {
        return new String(book, StandardCharsets.UTF_8).split("\n", -1);
    }
}
