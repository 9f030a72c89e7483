package io.reactivecollectives.transport.shm;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.rendezvous.Store;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How the ranks of a group on one host agree to share memory, through the group's store: the lowest
 * local rank (the leader) creates the segment and publishes its path, or why it made none; every
 * other local rank maps it and answers whether it could; the leader unlinks the file once all
 * answered (from then on a killed rank leaves nothing in {@code /dev/shm}) and publishes the
 * verdict. Shared memory is used only when every local rank mapped it; otherwise all of them keep
 * their Unix sockets and each logs one line saying why.
 *
 * <p>The leader first removes files that earlier processes of this library left behind (their
 * creator's process id is in the name and no longer runs), checks the free space of the directory
 * (containers often give {@code /dev/shm} 64 MB) and sets the host's budget for ring data within
 * it ({@link ShmSettings#budgetFor}); the segment's fixed part is written at once, so a directory
 * that is too small for it fails here, not later.
 */
public final class ShmRendezvous {

    private static final Logger log = LoggerFactory.getLogger(ShmRendezvous.class);
    /** File names start with this, then the creator's process id. */
    static final String PREFIX = "rc-shm-";
    private static final String OK = "ok:";
    private static final String OFF = "off:";

    private ShmRendezvous() {
    }

    /**
     * Agrees on a segment among {@code locals}.
     *
     * @param store    the group's store
     * @param groupId  the group's id, and what tells this forming of it from earlier ones (key prefix)
     * @param rank     this rank
     * @param locals   the ranks on this host, ascending, {@code rank} among them, at least two
     * @param settings the settings (the leader's count)
     * @param timeout  how long to wait for the other local ranks
     * @param describe {@code group '<id>' rank <r>}, for the log line
     * @return the mapped segment (the caller holds it), or empty when the ranks use sockets
     */
    public static Mono<ShmSegment> establish(Store store, String groupId, int rank, int[] locals, ShmSettings settings,
                                             Duration timeout, String describe) {
        String base = "rc/" + groupId + "/shm/";
        String view = Arrays.toString(locals);
        boolean leader = rank == locals[0];
        Mono<ShmSegment> mine = leader ? lead(store, base, rank, locals, settings, timeout, view)
                : follow(store, base, rank, locals, settings, timeout, view);
        return mine.map(java.util.Optional::of).defaultIfEmpty(java.util.Optional.empty())
                .flatMap(seg -> store.get(base + "go", timeout).map(b -> new String(b, StandardCharsets.UTF_8))
                        .flatMap(go -> {
                            if (go.equals(OK) && seg.isPresent()) {
                                return Mono.just(seg.get());
                            }
                            seg.ifPresent(ShmSegment::release);
                            String why = go.startsWith(OFF) ? go.substring(OFF.length()) : go;
                            if (why.contains("switched off")) {
                                log.info("{}: shared memory switched off, the ranks {} of this host talk through Unix"
                                        + " sockets ({})", describe, view, why);
                                return Mono.empty();
                            }
                            log.warn("{}: shared memory not used, the ranks {} of this host talk through Unix sockets: {}",
                                    describe, view, why);
                            return Mono.empty();
                        }));
    }

    private static Mono<ShmSegment> lead(Store store, String base, int rank, int[] locals, ShmSettings settings,
                                         Duration timeout, String view) {
        return Mono.fromCallable(() -> create(settings, locals.length, rank))
                .subscribeOn(BlockingScheduler.get())
                .onErrorResume(IOException.class, e -> store.set(base + "segment",
                                bytes(OFF + "rank " + rank + " could not make a segment: " + e.getMessage()))
                        .then(store.set(base + "go", bytes(OFF + "rank " + rank + ": " + e.getMessage())))
                        .then(Mono.empty()))
                .flatMap(seg -> store.set(base + "segment", bytes("ring=" + seg.ringBytes() + ";path=" + seg.path()))
                        .then(Flux.fromStream(java.util.Arrays.stream(locals).boxed()).filter(r -> r != rank)
                                .concatMap(r -> store.get(base + "ack/" + r, timeout)
                                        .map(b -> verdictOf(r, new String(b, StandardCharsets.UTF_8), view)))
                                .filter(v -> !v.isEmpty())
                                .collectList())
                        .publishOn(BlockingScheduler.get())
                        .doOnNext(refusals -> seg.unlink())
                        .doOnError(e -> seg.unlink())
                        .flatMap(refusals -> store.set(base + "go", bytes(refusals.isEmpty() ? OK : OFF + refusals.get(0)))
                                .thenReturn(seg))
                        .doOnDiscard(ShmSegment.class, ShmSegment::release));
    }

    private static String verdictOf(int peer, String ack, String view) {
        if (ack.equals(OK + view)) {
            return "";
        }
        return ack.startsWith(OFF) ? "rank " + peer + ": " + ack.substring(OFF.length())
                : "rank " + peer + " sees other local ranks (" + ack.substring(OK.length()) + " against " + view + ")";
    }

    private static Mono<ShmSegment> follow(Store store, String base, int rank, int[] locals, ShmSettings settings,
                                           Duration timeout, String view) {
        return store.get(base + "segment", timeout)
                .publishOn(BlockingScheduler.get())
                .flatMap(b -> {
                    String published = new String(b, StandardCharsets.UTF_8);
                    if (!published.startsWith("ring=")) {
                        return store.set(base + "ack/" + rank, bytes(OFF + "no segment")).then(Mono.<ShmSegment>empty());
                    }
                    ShmSegment seg;
                    try {
                        String why = settings.unavailableReason();
                        if (why != null) {
                            throw new IOException(why);
                        }
                        int semi = published.indexOf(";path=");
                        int ring = Integer.parseInt(published.substring(5, semi));
                        seg = ShmSegment.attach(Path.of(published.substring(semi + 6)), locals.length, ring);
                    } catch (IOException | RuntimeException e) {
                        return store.set(base + "ack/" + rank, bytes(OFF + "could not map the segment: " + e.getMessage()))
                                .then(Mono.<ShmSegment>empty());
                    }
                    return store.set(base + "ack/" + rank, bytes(OK + view)).thenReturn(seg)
                            .doOnError(e -> seg.release());
                });
    }

    private static ShmSegment create(ShmSettings settings, int locals, int rank) throws IOException {
        Path dir = settings.directory();
        if (settings.unavailableReason() == null) {
            removeLeftovers(dir);
        }
        String why = settings.unavailableReason(locals);
        if (why != null) {
            throw new IOException(why);
        }
        long free = Files.getFileStore(dir).getUsableSpace();
        int ring = settings.ringBytesFor(locals, free);
        if (ring < 0) {
            throw new IOException(settings.unavailableReason(locals));
        }
        if (ring < settings.ringBytes()) {
            log.info("rank {}: rings of {} KiB instead of {} KiB, to leave {} MiB of {} free", rank, ring >> 10,
                    settings.ringBytes() >> 10, settings.reserveBytes() >> 20, dir);
        }
        String name = PREFIX + ProcessHandle.current().pid() + "-" + rank + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong());
        long budget = Math.min(settings.budgetFor(locals, free), (long) locals * (locals - 1) * ring);
        return ShmSegment.create(dir.resolve(name), locals, ring, budget);
    }

    /** Deletes segment files whose creating process is gone (it died before unlinking). */
    static void removeLeftovers(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path f : files) {
                String rest = f.getFileName().toString().substring(PREFIX.length());
                int dash = rest.indexOf('-');
                try {
                    long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                    if (ProcessHandle.of(pid).isEmpty()) {
                        Files.deleteIfExists(f);
                    }
                } catch (NumberFormatException | IOException ignored) {
                    // not one of ours, or not ours to delete
                }
            }
        } catch (IOException ignored) {
            // an unreadable directory fails the creation itself, with its reason
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
