package io.reactivecollectives.transport.mesh;

import io.reactivecollectives.core.observe.Notices;
import io.reactivecollectives.core.observe.WaitReports;
import io.reactivecollectives.core.rendezvous.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The wait reports of a mesh that is starting (the rendezvous): every interval, until the start
 * ends, which ranks this rank still waits for and for how long, e.g.
 * {@code group 'default' rank 1: rendezvous: waiting for ranks 2, 3 to join (10 s of 60 s)}. A
 * peer without a connection yet is asked for in the store: without its address key it has not
 * joined; with one it joined and is not connected yet (with the last error connecting to it). The
 * store calls are asynchronous and bounded by the interval; when the store does not answer the
 * peers are named without that distinction.
 */
final class MeshWaits implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(MeshWaits.class);
    /** The most peers looked up in the store per report. */
    static final int MOST_CHECKED = 64;

    private final Mesh mesh;
    private final Store store;
    private final Duration interval;
    private final long startNanos = System.nanoTime();

    private MeshWaits(Mesh mesh, Store store, Duration interval) {
        this.mesh = mesh;
        this.store = store;
        this.interval = interval;
    }

    /** Reports every {@code interval} until disposed (never when it is zero). */
    static Disposable start(Mesh mesh, Store store, Duration interval) {
        return WaitReports.every(interval, new MeshWaits(mesh, store, interval));
    }

    /**
     * Fails, once the store's connection closes ({@link Store#onClose()}: its host is gone), with a
     * {@link MeshStartException} naming this rank, the store and the ranks still missing: through a
     * closed store no rank can find another, so the start cannot succeed and waiting out the
     * connect timeout would only hide why.
     */
    static Mono<Void> storeClosed(Mesh mesh, Store store) {
        return store.onClose().then(Mono.error(() -> new MeshStartException(mesh.describe() + ": rendezvous: the "
                + "connection to store " + store + " closed while waiting for " + WaitReports.ranks(missing(mesh))
                + " to join or connect (the store's host is gone: the process that embeds it, rank 0 under "
                + "collectives-run, or the store server exited); the group cannot form", null)));
    }

    /** The ranks this mesh expects and is not connected to. */
    private static List<Integer> missing(Mesh mesh) {
        List<Integer> missing = new ArrayList<>();
        for (int p = 0; p < mesh.world(); p++) {
            if (p != mesh.rank() && mesh.link(p) == null && mesh.expects(p)) {
                missing.add(p);
            }
        }
        return missing;
    }

    @Override
    public void run() {
        String prefix = mesh.describe() + ": rendezvous: ";
        String time = " (" + WaitReports.duration(System.nanoTime() - startNanos) + " of "
                + WaitReports.duration(mesh.options().connectTimeout().toNanos()) + ")";
        List<Integer> missing = missing(mesh);
        if (missing.isEmpty()) {
            Notices.warn(LOG, prefix + "every rank is connected; still setting up shared memory with the ranks of"
                    + " this host" + time);
            return;
        }
        List<Integer> asked = missing.subList(0, Math.min(MOST_CHECKED, missing.size()));
        Flux.fromIterable(asked)
                .flatMapSequential(p -> store.check(List.of(Mesh.addressKey(mesh.options().groupId(), p)))
                        .map(joined -> joined ? p : -1 - p))
                .collectList()
                .timeout(interval, WaitReports.scheduler())
                .subscribe(found -> Notices.warn(LOG, prefix + classified(found, missing.size() - asked.size()) + time),
                        e -> Notices.warn(LOG, prefix + "waiting for " + WaitReports.ranks(missing)
                                + " to join or connect (the store did not say which: " + e + ")" + time));
    }

    /** {@code waiting for ranks 2, 3 to join and for rank 4 to connect (it joined; last error: ...)}. */
    private String classified(List<Integer> found, int unchecked) {
        List<Integer> absent = new ArrayList<>();
        List<Integer> joined = new ArrayList<>();
        for (int f : found) {
            if (f >= 0) {
                joined.add(f);
            } else {
                absent.add(-1 - f);
            }
        }
        StringBuilder b = new StringBuilder("waiting for ");
        if (!absent.isEmpty()) {
            b.append(WaitReports.ranks(absent)).append(" to join");
        }
        if (!joined.isEmpty()) {
            b.append(absent.isEmpty() ? "" : " and for ").append(WaitReports.ranks(joined))
                    .append(" to connect (").append(joined.size() == 1 ? "it" : "they").append(" joined");
            String error = mesh.lastError(joined.get(0));
            if (error != null) {
                b.append("; last error connecting to rank ").append(joined.get(0)).append(": ").append(error);
            }
            b.append(')');
        }
        if (unchecked > 0) {
            b.append(", and ").append(unchecked).append(" more ranks");
        }
        return b.toString();
    }
}
