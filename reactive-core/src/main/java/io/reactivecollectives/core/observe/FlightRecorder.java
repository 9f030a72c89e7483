package io.reactivecollectives.core.observe;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.OpType;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.settings.CoreSettings;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The last N collectives of one rank of one group (as ProcessGroupNCCL's flight recorder): what
 * was asked (op, sequence number, dtype, shapes), how it ran (algorithm), how far it got (SCHEDULED,
 * STARTED, COMPLETED, FAILED, with a timestamp for each), the peer it was waiting on, and its error.
 *
 * <p>Recording is cheap: one {@link Entry} object per collective placed in a lock-free ring buffer
 * (an atomic index and an {@link AtomicReferenceArray}); progress updates are volatile writes on
 * that entry, with no allocation.
 *
 * <p>{@link #dump()} writes the buffer as JSON (see {@link FlightRecorderDump}) to
 * {@code flight-recorder-<group>-rank<r>.json} in the job's directory
 * {@code <dir>/flight-recorder-<job>/} (see {@link #job(String)}: a group's ranks agree on the job
 * when they connect, so the dumps of one job are side by side and those of another job, even
 * with the same group id, never overwrite them); {@code <dir>} is {@link Config#dumpDirectory()},
 * by default the system property {@value #DIRECTORY_PROPERTY}, else the environment variable
 * {@value #DIRECTORY_ENV}, else {@code java.io.tmpdir}. A recorder that belongs to no job writes
 * into {@code <dir>} itself. The returned {@code Mono} does the file I/O on {@link BlockingScheduler}
 * and emits the file's path; every automatic dump also says where it went in one line (see
 * {@link Notices}).
 * {@link #dumpOnFailure(String)} is what a group calls on a timeout or a peer failure: it starts the
 * dump at once (without a subscriber) unless it is disabled, and coalesces a burst of failures
 * into one or two writes; a collective's error reaches its subscriber once that dump is written,
 * and a JVM shutdown hook writes any automatic dump still pending when the process exits.
 * {@link FlightRecorderAnalyzer} reads the dumps of all ranks.
 */
public final class FlightRecorder {

    /** Entries kept when no capacity is configured (as c10d's TORCH_NCCL_TRACE_BUFFER_SIZE default). */
    public static final int DEFAULT_CAPACITY = 2_000;
    /** System property naming the default dump directory. */
    public static final String DIRECTORY_PROPERTY = "rc.flight-recorder.dir";
    /** Environment variable naming the default dump directory (when the property is not set). */
    public static final String DIRECTORY_ENV = "RC_FLIGHT_RECORDER_DIR";

    /** How far a collective got. */
    public enum State {
        /** Recorded, not started yet. */
        SCHEDULED,
        /** Running. */
        STARTED,
        /** Completed normally. */
        COMPLETED,
        /** Failed, with its error. */
        FAILED
    }

    /**
     * Configuration.
     *
     * @param capacity      entries kept (the oldest are overwritten), at least 1
     * @param dumpDirectory where dump files go
     * @param dumpOnFailure whether {@link #dumpOnFailure(String)} writes a dump
     */
    public record Config(int capacity, Path dumpDirectory, boolean dumpOnFailure) {

        /**
         * Checks the configuration.
         *
         * @param capacity      entries kept, at least 1
         * @param dumpDirectory where dump files go, not null
         * @param dumpOnFailure whether {@link #dumpOnFailure(String)} writes a dump
         * @throws IllegalArgumentException when {@code capacity} is below 1
         */
        public Config {
            if (capacity < 1) {
                throw new IllegalArgumentException("flight recorder capacity must be at least 1, got " + capacity);
            }
            Objects.requireNonNull(dumpDirectory, "dumpDirectory");
        }

        /**
         * {@link #DEFAULT_CAPACITY} entries, dumps on failure, into the directory named by the
         * {@value #DIRECTORY_PROPERTY} property, else the {@value #DIRECTORY_ENV} variable, else
         * {@code java.io.tmpdir}.
         *
         * @return the default configuration
         */
        public static Config defaults() {
            return new Config(DEFAULT_CAPACITY, CoreSettings.FLIGHT_RECORDER_DIR.get(), true);
        }

        /**
         * This configuration with another capacity.
         *
         * @param c entries kept, at least 1
         * @return the new configuration
         */
        public Config withCapacity(int c) {
            return new Config(c, dumpDirectory, dumpOnFailure);
        }

        /**
         * This configuration with another dump directory.
         *
         * @param d where dump files go
         * @return the new configuration
         */
        public Config withDumpDirectory(Path d) {
            return new Config(capacity, d, dumpOnFailure);
        }

        /**
         * This configuration with automatic dumps on failure turned on or off.
         *
         * @param on whether {@link #dumpOnFailure(String)} writes a dump
         * @return the new configuration
         */
        public Config withDumpOnFailure(boolean on) {
            return new Config(capacity, dumpDirectory, on);
        }
    }

    private final String groupId;
    private final int rank;
    private final int worldSize;
    private final Config config;
    private final FlightRecorderRing ring;
    private final FlightRecorderDumps dumps = new FlightRecorderDumps(this);
    private volatile String job;

    /**
     * A recorder with {@link Config#defaults()}.
     *
     * @param groupId   the group's name
     * @param rank      this process's rank in the group
     * @param worldSize the group's size
     */
    public FlightRecorder(String groupId, int rank, int worldSize) {
        this(groupId, rank, worldSize, Config.defaults());
    }

    /**
     * A recorder for one rank of a group.
     *
     * @param groupId   the group's name
     * @param rank      this process's rank, in {@code [0, worldSize)}
     * @param worldSize the group's size
     * @param config    capacity and dumps
     * @throws IllegalArgumentException when {@code rank} is outside the world
     */
    public FlightRecorder(String groupId, int rank, int worldSize, Config config) {
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        if (rank < 0 || worldSize < 1 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is outside a world of " + worldSize);
        }
        this.rank = rank;
        this.worldSize = worldSize;
        this.config = Objects.requireNonNull(config, "config");
        this.ring = new FlightRecorderRing(config.capacity());
    }

    /** {@return the group's name} */
    public String groupId() {
        return groupId;
    }

    /** {@return this process's rank in the group} */
    public int rank() {
        return rank;
    }

    /** {@return the group's size} */
    public int worldSize() {
        return worldSize;
    }

    /** {@return the configuration} */
    public Config config() {
        return config;
    }

    /**
     * How many collectives were recorded in all (the buffer holds the last {@code capacity}).
     *
     * @return the number of collectives recorded
     */
    public long recorded() {
        return ring.recorded();
    }

    /**
     * Records a collective in state SCHEDULED and returns its entry, which the caller moves along
     * with {@link Entry#started()}, {@link Entry#waitingFor(int, String)}, {@link Entry#completed()}
     * and {@link Entry#failed(Throwable)}.
     *
     * @return the new entry
     * @param seq          the collective's sequence number
     * @param op           the op
     * @param dtype        the element type, null where the op has none (barrier)
     * @param inputShapes  shapes of the input tensors (see {@link #shapesOf(List)}); not copied, do not modify
     * @param outputShapes shapes of the output tensors; not copied, do not modify
     * @param algorithm    the algorithm, null if not chosen yet (see {@link Entry#algorithm(String)})
     */
    public Entry record(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes, String algorithm) {
        return record(seq, op, dtype, inputShapes, outputShapes, algorithm, System.nanoTime());
    }

    /** {@link #record} at {@code nowNanos} (the observer's own clock reading, one per collective). */
    Entry record(long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes, String algorithm,
                 long nowNanos) {
        Entry e = new Entry(ring.nextId(), seq, Objects.requireNonNull(op, "op"), dtype,
                inputShapes == null ? NO_SHAPES : inputShapes, outputShapes == null ? NO_SHAPES : outputShapes,
                algorithm, nowNanos);
        ring.put(e);
        return e;
    }

    private static final long[][] NO_SHAPES = new long[0][];

    /**
     * The shapes of {@code tensors}, in order.
     *
     * @param tensors the tensors
     * @return one shape per tensor
     */
    public static long[][] shapesOf(List<Tensor> tensors) {
        long[][] s = new long[tensors.size()][];
        for (int i = 0; i < s.length; i++) {
            s[i] = tensors.get(i).shape();
        }
        return s;
    }

    /**
     * The shapes of {@code tensors}, in order.
     *
     * @param tensors the tensors
     * @return one shape per tensor
     */
    public static long[][] shapesOf(Tensor... tensors) {
        return shapesOf(Arrays.asList(tensors));
    }

    /**
     * The entry of the collective with sequence number {@code seq}, if still in the buffer.
     *
     * @param seq the collective's sequence number
     * @return the newest entry with that sequence number, or null
     */
    public Entry find(long seq) {
        return ring.find(seq);
    }

    /**
     * The retained entries, oldest first, as immutable records.
     *
     * @return the entries
     */
    public List<FlightRecorderDump.Entry> entries() {
        return ring.records();
    }

    /**
     * Everything the recorder holds now.
     *
     * @param reason why the dump is written, recorded in it
     * @return a dump of the recorder's state
     */
    public FlightRecorderDump snapshot(String reason) {
        return new FlightRecorderDump(FlightRecorderDump.FORMAT_VERSION, groupId, rank, worldSize,
                ring.toEpochMicros(System.nanoTime()), reason, ring.capacity(), ring.recorded(), ring.records());
    }

    /**
     * The file {@link #dump()} writes: {@code <dir>/flight-recorder-<job>/flight-recorder-<group>-rank<r>.json},
     * or {@code <dir>/flight-recorder-<group>-rank<r>.json} while the recorder belongs to no job.
     *
     * @return the dump file
     */
    public Path dumpFile() {
        return dumpDirectory().resolve(fileName(groupId, rank));
    }

    /**
     * Where this recorder's dumps go: the job's directory {@code <dir>/flight-recorder-<job>}, or
     * {@code <dir>} itself while the recorder belongs to no job.
     *
     * @return the directory of the dump file
     */
    public Path dumpDirectory() {
        String j = job;
        return j == null ? config.dumpDirectory() : config.dumpDirectory().resolve(jobDirectoryName(j));
    }

    /**
     * The job this recorder's group belongs to, which names its dump directory (a group's ranks
     * agree on it as they connect; its subgroups and later generations keep it). Set it before the
     * first dump.
     *
     * @param id the job's id (see {@link #newJobId()}), or null for none
     * @return this recorder
     */
    public FlightRecorder job(String id) {
        this.job = id;
        return this;
    }

    /** {@return the job this recorder belongs to, or null} */
    public String job() {
        return job;
    }

    /**
     * A fresh job id: the local date and time, then six random hexadecimal digits
     * ({@code 20250114-101503-3fa9c2}), so that job directories sort by start and two jobs that
     * start in the same second still differ.
     *
     * @return the id
     */
    public static String newJobId() {
        return java.time.LocalDateTime.now().format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + String.format("%06x", java.util.concurrent.ThreadLocalRandom.current().nextInt(1 << 24));
    }

    /**
     * {@code flight-recorder-<job>}, the directory of one job's dumps, with characters other than
     * letters, digits, '.', '_' and '-' replaced by '_'.
     *
     * @param job the job's id
     * @return the directory's name
     */
    public static String jobDirectoryName(String job) {
        return "flight-recorder-" + job.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /**
     * {@code flight-recorder-<group>-rank<r>.json}, with characters other than letters, digits, '.', '_'
     * and '-' in the group replaced by '_'.
     *
     * @param groupId the group's name
     * @param rank    this process's rank in the group
     * @return the file name
     */
    public static String fileName(String groupId, int rank) {
        return "flight-recorder-" + groupId.replaceAll("[^A-Za-z0-9._-]", "_") + "-rank" + rank + ".json";
    }

    /**
     * {@link #dump(String)} with the reason "on request".
     *
     * @return a cold {@code Mono} emitting the dump file's path
     */
    public Mono<Path> dump() {
        return dump("on request");
    }

    /**
     * Writes the buffer as it is when subscribed to {@link #dumpFile()} (written to a temporary file
     * first, then moved in place), on {@link BlockingScheduler}. Emits the file's path, or
     * an {@link IOException} as an error. Cold.
     *
     * @param reason why the dump is written, recorded in it
     * @return a cold {@code Mono} emitting the dump file's path
     */
    public Mono<Path> dump(String reason) {
        return dumps.dump(reason);
    }

    /**
     * What a group calls on a timeout or a peer failure: unless {@link Config#dumpOnFailure()} is
     * off (then empty), starts a dump now, without waiting for a subscriber, and returns a
     * {@code Mono} of its path (cached, so subscribing is optional and repeatable). A failure while
     * a dump is queued but not yet started joins that dump; one arriving while a dump is being
     * written queues one more, so the last file always shows the last failure. Write errors are
     * logged and emitted.
     *
     * @param reason why the dump is written, recorded in it
     * @return a {@code Mono} of the dump file's path, empty when dumps on failure are off
     */
    public Mono<Path> dumpOnFailure(String reason) {
        return config.dumpOnFailure() ? dumps.dumpOnFailure(reason) : Mono.empty();
    }

    /**
     * Completes when every automatic dump started so far has been written (or has failed): what to
     * wait for before the dump directory is removed or the process exits.
     *
     * @return a {@code Mono} completing when the dumps have ended
     */
    public Mono<Void> awaitDumps() {
        return dumps.awaitDumps();
    }

    /**
     * {@link #dumpOnFailure(String)} with the error's message as the reason.
     *
     * @param error the failure
     * @return a {@code Mono} of the dump file's path, empty when dumps on failure are off
     */
    public Mono<Path> dumpOnFailure(Throwable error) {
        return dumpOnFailure(String.valueOf(error.getMessage() != null ? error.getMessage() : error));
    }

    /**
     * Reads a dump file written by {@link #dump()}. Blocking: call it off event loops.
     *
     * @param file the dump file
     * @return the dump
     * @throws IOException when the file cannot be read or parsed
     */
    public static FlightRecorderDump read(Path file) throws IOException {
        return FlightRecorderJson.read(file);
    }

    /**
     * The JSON text of a dump (what a dump file holds).
     *
     * @param dump the dump
     * @return the JSON text
     */
    public static String toJson(FlightRecorderDump dump) {
        return new String(FlightRecorderJsonWriter.toBytes(dump), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Parses the JSON text of a dump.
     *
     * @param json the JSON text
     * @return the dump
     * @throws IOException when the text is not a dump
     */
    public static FlightRecorderDump fromJson(String json) throws IOException {
        return FlightRecorderJson.fromJson(json);
    }

    /**
     * A short description of where the collective {@code seq} stands on this rank, for error
     * messages: {@code "flight recorder: allReduce seq 42 STARTED 2013 ms ago, waiting for rank 3
     * (recv step 2); last completed seq 41"}.
     *
     * @param seq the collective's sequence number
     * @return the description
     */
    public String describe(long seq) {
        return FlightRecorderDumps.describe(this, seq);
    }

    /** The entries in the buffer now, in no order (nulls for empty slots). */
    Entry[] slots() {
        return ring.slots();
    }

    /**
     * One collective in the recorder. Its progress methods are cheap volatile writes and may be
     * called from any thread; the first of {@link #completed()} and {@link #failed(Throwable)} wins.
     */
    public final class Entry {

        private static final AtomicReferenceFieldUpdater<Entry, State> STATE =
                AtomicReferenceFieldUpdater.newUpdater(Entry.class, State.class, "state");

        final long id;
        final long seq;
        final OpType op;
        final DType dtype;
        final long[][] inputShapes;
        final long[][] outputShapes;
        final long scheduledNanos;
        volatile String algorithm;
        volatile State state = State.SCHEDULED;
        volatile long startedNanos;
        volatile long endedNanos;
        volatile int waitingFor = -1;
        volatile String waitingWhat;
        volatile String error;

        Entry(long id, long seq, OpType op, DType dtype, long[][] inputShapes, long[][] outputShapes,
              String algorithm, long scheduledNanos) {
            this.id = id;
            this.seq = seq;
            this.op = op;
            this.dtype = dtype;
            this.inputShapes = inputShapes;
            this.outputShapes = outputShapes;
            this.algorithm = algorithm;
            this.scheduledNanos = scheduledNanos;
        }

        /** {@return the collective's sequence number} */
        public long seq() {
            return seq;
        }

        /** {@return the op} */
        public OpType op() {
            return op;
        }

        /** {@return how far the collective got} */
        public State state() {
            return state;
        }

        /** {@return the bytes of the collective's input tensors (0 for an op without a dtype)} */
        public long inputBytes() {
            return FlightRecorderDumps.bytes(inputShapes, dtype);
        }

        /**
         * The peer last waited on, or -1.
         *
         * @return the peer rank, or -1
         */
        public int waitingFor() {
            return waitingFor;
        }

        /**
         * Sets the algorithm once the group has chosen it.
         *
         * @param name the algorithm's name
         * @return this entry
         */
        public Entry algorithm(String name) {
            this.algorithm = name;
            return this;
        }

        /**
         * SCHEDULED -> STARTED (ignored in any other state).
         *
         * @return this entry
         */
        public Entry started() {
            if (state == State.SCHEDULED) {
                startedAt(System.nanoTime());
            }
            return this;
        }

        /** {@link #started()} at {@code nowNanos}. */
        Entry startedAt(long nowNanos) {
            if (state == State.SCHEDULED) {
                startedNanos = nowNanos;
                STATE.compareAndSet(this, State.SCHEDULED, State.STARTED);
            }
            return this;
        }

        /**
         * The collective now waits on {@code peer}; {@code what} (a constant string, so that no
         * message is built on the hot path) says for what, or null.
         *
         * @param peer the peer rank
         * @param what what it waits for ({@code recv step 2}), or null
         * @return this entry
         */
        public Entry waitingFor(int peer, String what) {
            this.waitingWhat = what;
            this.waitingFor = peer;
            return this;
        }

        /**
         * {@link #waitingFor(int, String)} without a description.
         *
         * @param peer the peer rank
         * @return this entry
         */
        public Entry waitingFor(int peer) {
            return waitingFor(peer, null);
        }

        /**
         * Completed normally, unless it already ended.
         *
         * @return this entry
         */
        public Entry completed() {
            return completedAt(System.nanoTime());
        }

        /** {@link #completed()} at {@code nowNanos}. */
        Entry completedAt(long nowNanos) {
            State s = state;
            if ((s == State.SCHEDULED || s == State.STARTED) && STATE.compareAndSet(this, s, State.COMPLETED)) {
                endedNanos = nowNanos;
                waitingFor = -1;
                waitingWhat = null;
            }
            return this;
        }

        /**
         * Failed with {@code error}, unless it already ended. Keeps the peer last waited on.
         *
         * @param error the failure
         * @return this entry
         */
        public Entry failed(Throwable error) {
            return failed(error == null ? "unknown error"
                    : error.getMessage() != null ? error.getMessage() : error.toString());
        }

        /**
         * Failed with the message {@code error}, unless it already ended.
         *
         * @param message the failure's description
         * @return this entry
         */
        public Entry failed(String message) {
            for (;;) {
                State s = state;
                if (s == State.COMPLETED || s == State.FAILED) {
                    return this;
                }
                this.error = message;
                if (STATE.compareAndSet(this, s, State.FAILED)) {
                    endedNanos = System.nanoTime();
                    return this;
                }
            }
        }

        @Override
        public String toString() {
            return op.displayName() + "[seq=" + seq + "] " + state;
        }
    }
}
