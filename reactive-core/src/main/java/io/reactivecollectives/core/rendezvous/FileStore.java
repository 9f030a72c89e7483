package io.reactivecollectives.core.rendezvous;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Store} kept in one file that many processes share, as c10d's {@code FileStore}: ranks on
 * one machine, or on machines that share a file system with working POSIX locks, meet through it.
 *
 * <h2>Format and safety</h2>
 * The file is an append-only log of records {@code [magic][type][keyLength][valueLength][key][value][crc32]}
 * (types: set, delete, append); each process replays it into a cache and reads the new records
 * before every operation. Every write happens while holding an exclusive {@link FileLock} (taken on
 * a region past any data, so reads need no lock) and, within one JVM, a monitor shared by every
 * {@code FileStore} on the same file (Java file locks are per process). A writer killed mid-write
 * leaves an incomplete or corrupt record at the end: readers stop before it, and the next writer,
 * holding the lock and so knowing no live writer is at work, truncates it away before appending.
 * Records before it are never touched. The file is not fsync'ed: it survives killed processes,
 * not a machine crash, as c10d's.
 *
 * <h2>Threads and signals</h2>
 * All file I/O runs as non-interruptible tasks on a bounded scheduler
 * ({@link Schedulers#boundedElastic()} unless given one); each call emits its result from that
 * scheduler. Waiting calls ({@link #get}, {@link #await}, {@link #multiGet}) poll the file with
 * exponential backoff (1 ms doubling to 50 ms) between polls timed by {@link Mono#delay} on
 * {@code Schedulers.parallel()}, so a wait holds no thread while it sleeps; on timeout they fail with
 * a {@link StoreTimeoutException} naming the keys still missing at the last poll. Cancelling a wait
 * stops its polling; an I/O task already running finishes and its result is dropped.
 *
 * <p>The file is left in place on {@link #close()}; whoever created it deletes it.
 */
public final class FileStore implements Store {

    private static final Logger LOG = LoggerFactory.getLogger(FileStore.class);

    static final int MAGIC = FileStoreLog.MAGIC;
    static final byte SET = FileStoreLog.SET;
    static final int HEADER = FileStoreLog.HEADER;
    static final int TRAILER = FileStoreLog.TRAILER;
    private static final long LOCK_POSITION = Long.MAX_VALUE - 1;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(1);
    private static final Duration MAX_BACKOFF = Duration.ofMillis(50);

    /** One monitor per file per JVM, shared by every FileStore open on it. */
    private static final Map<Path, Shared> SHARED = new HashMap<>();

    private final Path path;
    private final Duration timeout;
    private final Scheduler scheduler;
    private final Shared shared;
    private final FileChannel channel;

    /** Guarded by shared.monitor: the log and the values replayed from it. */
    private final FileStoreLog log;
    /** Guarded by shared.monitor. */
    private final Map<String, byte[]> values;
    /** Guarded by shared.monitor. */
    private boolean closed;

    /**
     * A store in {@code path} (created if absent) with waits of {@link Store#DEFAULT_TIMEOUT}.
     *
     * @param path the store's file
     */
    public FileStore(Path path) {
        this(path, DEFAULT_TIMEOUT);
    }

    /**
     * A store in {@code path} (created if absent) whose waits last {@code timeout}.
     *
     * @param path    the store's file
     * @param timeout how long waits last
     */
    public FileStore(Path path, Duration timeout) {
        this(path, timeout, Schedulers.boundedElastic());
    }

    /**
     * A store in {@code path} (created, with its parent directories, if absent) whose waits last
     * {@code timeout}, doing its file I/O on {@code ioScheduler}, which must allow blocking.
     * Opening does file I/O on the calling thread: construct it where blocking is allowed.
     *
     * @param path        the store's file
     * @param timeout     how long waits last
     * @param ioScheduler where file I/O runs; it must allow blocking
     * @throws UncheckedIOException if the file cannot be opened
     */
    public FileStore(Path path, Duration timeout, Scheduler ioScheduler) {
        this.timeout = HashStore.requirePositive(timeout, "timeout");
        this.scheduler = Objects.requireNonNull(ioScheduler, "ioScheduler");
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            this.path = path.toRealPath();
            this.log = new FileStoreLog(channel, this.path);
            this.values = log.values();
        } catch (IOException e) {
            throw new UncheckedIOException("FileStore: cannot open " + path + ": " + e.getMessage(), e);
        }
        synchronized (SHARED) {
            Shared s = SHARED.computeIfAbsent(this.path, p -> new Shared());
            s.refs++;
            this.shared = s;
        }
    }

    /**
     * The file holding the store.
     *
     * @return the file
     */
    public Path path() {
        return path;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public Mono<Void> set(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        byte[] copy = Objects.requireNonNull(value, "value").clone();
        return write("set", () -> {
            log.appendRecords(List.of(new FileStoreLog.Record(FileStoreLog.SET, key, copy)));
            return null;
        }).then();
    }

    @Override
    public Mono<byte[]> get(String key, Duration timeout) {
        Objects.requireNonNull(key, "key");
        return waitFor("get", List.of(key), timeout).map(list -> list.get(0));
    }

    @Override
    public Mono<Long> add(String key, long delta) {
        Objects.requireNonNull(key, "key");
        return write("add", () -> {
            byte[] current = values.get(key);
            long next = (current == null ? 0L : HashStore.parseCounter(key, current)) + delta;
            log.appendRecords(List.of(new FileStoreLog.Record(FileStoreLog.SET, key, Long.toString(next).getBytes(StandardCharsets.US_ASCII))));
            return next;
        });
    }

    @Override
    public Mono<byte[]> compareSet(String key, byte[] expected, byte[] desired) {
        Objects.requireNonNull(key, "key");
        byte[] exp = Objects.requireNonNull(expected, "expected").clone();
        byte[] des = Objects.requireNonNull(desired, "desired").clone();
        return write("compareSet", () -> {
            byte[] current = values.get(key);
            if ((current == null && exp.length == 0) || (current != null && Arrays.equals(current, exp))) {
                log.appendRecords(List.of(new FileStoreLog.Record(FileStoreLog.SET, key, des)));
                return des.clone();
            }
            return current == null ? exp : current.clone();
        });
    }

    @Override
    public Mono<Void> await(List<String> keys, Duration timeout) {
        return waitFor("await", keys, timeout).then();
    }

    @Override
    public Mono<Boolean> check(List<String> keys) {
        List<String> copy = List.copyOf(keys);
        return read("check", () -> values.keySet().containsAll(copy));
    }

    @Override
    public Mono<Boolean> delete(String key) {
        Objects.requireNonNull(key, "key");
        return write("delete", () -> {
            if (!values.containsKey(key)) {
                return false;
            }
            log.appendRecords(List.of(new FileStoreLog.Record(FileStoreLog.DELETE, key, new byte[0])));
            return true;
        });
    }

    @Override
    public Mono<Long> numKeys() {
        return read("numKeys", () -> (long) values.size());
    }

    @Override
    public Mono<List<byte[]>> multiGet(List<String> keys) {
        return waitFor("multiGet", keys, timeout);
    }

    @Override
    public Mono<Void> multiSet(Map<String, byte[]> entries) {
        List<FileStoreLog.Record> records = new ArrayList<>(entries.size());
        entries.forEach((k, v) -> records.add(new FileStoreLog.Record(FileStoreLog.SET, Objects.requireNonNull(k, "key"),
                Objects.requireNonNull(v, "value").clone())));
        return write("multiSet", () -> {
            log.appendRecords(records);
            return null;
        }).then();
    }

    @Override
    public Mono<Long> append(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        byte[] copy = Objects.requireNonNull(value, "value").clone();
        return write("append", () -> {
            log.appendRecords(List.of(new FileStoreLog.Record(FileStoreLog.APPEND, key, copy)));
            return (long) values.get(key).length;
        });
    }

    /**
     * Closes this process's handle on the file (the file stays); new calls fail with
     * {@link IllegalStateException}, and so do waits at their next poll. Blocks until an operation
     * of this JVM on the same file finishes.
     */
    @Override
    public void close() {
        synchronized (shared.monitor) {
            if (closed) {
                return;
            }
            closed = true;
            values.clear();
            try {
                channel.close();
            } catch (IOException e) {
                LOG.warn("FileStore {}: close failed: {}", path, e.toString());
            }
        }
        synchronized (SHARED) {
            if (--shared.refs == 0) {
                SHARED.remove(path);
            }
        }
    }

    @Override
    public String toString() {
        return "FileStore[" + path + "]";
    }

    /** Replays the log without repairing it and returns how many bytes of it are valid records (for tests). */
    long validLength() throws IOException {
        synchronized (shared.monitor) {
            ensureOpen("validLength");
            log.replay(false);
            return log.offset();
        }
    }

    // --- operations ------------------------------------------------------------------------------

    /** Runs {@code body} on the I/O scheduler under the JVM monitor and the file lock, after replaying the log. */
    private <T> Mono<T> write(String op, Callable<T> body) {
        return io(op, () -> {
            synchronized (shared.monitor) {
                ensureOpen(op);
                try (FileLock ignored = channel.lock(LOCK_POSITION, 1, false)) {
                    log.replay(true);
                    return body.call();
                }
            }
        });
    }

    /** Runs {@code body} on the I/O scheduler after replaying the log (no file lock). */
    private <T> Mono<T> read(String op, Callable<T> body) {
        return io(op, () -> {
            synchronized (shared.monitor) {
                ensureOpen(op);
                log.replay(false);
                return body.call();
            }
        });
    }

    /**
     * A task on the I/O scheduler that is never interrupted (an interrupt would close the shared
     * channel): cancelling the Mono only drops the result.
     */
    private <T> Mono<T> io(String op, Callable<T> task) {
        return Mono.create(sink -> scheduler.schedule(() -> {
            T result;
            try {
                result = task.call();
            } catch (IOException e) {
                sink.error(new UncheckedIOException(op + ": FileStore " + path + ": " + e.getMessage(), e));
                return;
            } catch (Throwable e) { // errors too (an OutOfMemoryError must not leave the caller hanging)
                sink.error(e);
                return;
            }
            if (result == null) {
                sink.success();
            } else {
                sink.success(result);
            }
        }));
    }

    private Mono<List<byte[]>> waitFor(String op, List<String> keys, Duration waitTimeout) {
        List<String> keyList = List.copyOf(keys);
        Duration limit = HashStore.requireNotNegative(waitTimeout, "timeout");
        return Mono.defer(() -> {
            AtomicReference<List<String>> missing = new AtomicReference<>(distinct(keyList));
            Mono<List<byte[]>> poll = read(op, () -> {
                List<String> absent = new ArrayList<>();
                for (String key : keyList) {
                    if (!values.containsKey(key) && !absent.contains(key)) {
                        absent.add(key);
                    }
                }
                missing.set(absent);
                if (!absent.isEmpty()) {
                    return null;
                }
                List<byte[]> out = new ArrayList<>(keyList.size());
                for (String key : keyList) {
                    out.add(values.get(key).clone());
                }
                return out;
            });
            if (limit.isZero()) { // no wait: a check now
                return poll.switchIfEmpty(Mono.defer(() -> Mono.error(
                        new StoreTimeoutException(op, missing.get(), limit))));
            }
            return poll
                    .repeatWhenEmpty(attempts -> attempts.concatMap(i -> Mono.delay(backoff(i))))
                    .timeout(limit, Mono.defer(() -> Mono.error(new StoreTimeoutException(op, missing.get(), limit))));
        });
    }

    private static Duration backoff(long attempt) {
        long ms = FIRST_BACKOFF.toMillis() << Math.min(attempt, 16);
        return Duration.ofMillis(Math.min(ms, MAX_BACKOFF.toMillis()));
    }

    private static List<String> distinct(List<String> keys) {
        return new ArrayList<>(new LinkedHashSet<>(keys));
    }

    private void ensureOpen(String op) {
        if (closed) {
            throw new IllegalStateException(op + ": FileStore " + path + " closed");
        }
    }

    /** Encodes one record (for tests that plant torn records). */
    static byte[] encode(byte type, String key, byte[] value) {
        return FileStoreLog.encode(type, key, value);
    }

    private static final class Shared {
        final Object monitor = new Object();
        int refs;
    }
}
