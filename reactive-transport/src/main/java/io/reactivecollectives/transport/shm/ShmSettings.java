package io.reactivecollectives.transport.shm;

import io.netty.util.internal.PlatformDependent;
import io.reactivecollectives.transport.settings.TransportSettings;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether and how ranks on one host share memory, from system properties:
 * {@code rc.transport.sharedMemory} (default {@code true}; {@code false} keeps Unix sockets),
 * {@code rc.transport.shmDir} (default {@code /dev/shm}), {@code rc.transport.shmRingBytes} (data
 * bytes of each one-way ring, a power of two, default 2 MiB), {@code rc.transport.shmReserveBytes}
 * (free space to leave in the directory, default 8 MiB), {@code rc.transport.shmBudgetBytes} (the
 * most ring data the ranks of a host take in all, default what the directory has free) and
 * {@code rc.transport.shmSpinMicros} (how
 * long the reading thread polls after the last traffic before it sleeps, default 200; see
 * {@link #spinNanosFor(int)} for hosts with more local ranks than processors).
 *
 * @param enabled      whether to try shared memory at all
 * @param directory    where the segment file is made
 * @param ringBytes    data bytes of one ring
 * @param reserveBytes free space to leave in the directory
 * @param budgetBytes  the most ring data bytes the local ranks take in all; 0: what the directory has free
 * @param spinNanos    polling time before sleeping, negative for the default ({@link #spinNanosFor(int)})
 */
public record ShmSettings(boolean enabled, Path directory, int ringBytes, long reserveBytes, long budgetBytes,
                          long spinNanos) {

    /**
     * The default most polling before sleeping: 200 us. Four times the event loops' 50 us because a
     * futex sleep and wake-up between two pinned pollers cost about that on a virtual machine, and a
     * shorter budget let each rank's sleep push its peer past its own budget (RESULTS.md, "Small
     * messages, third pass"); the budget adapts down to 1/32 of it where sleeping pays.
     */
    public static final long DEFAULT_SPIN_NANOS = 200_000L;

    /** The smallest ring the segment is shrunk to where the directory has little room. */
    public static final int MIN_RING_BYTES = 256 * 1024;

    /**
     * Checks the values.
     *
     * @param enabled      whether to try shared memory at all
     * @param directory    where the segment file is made
     * @param ringBytes    data bytes of one ring
     * @param reserveBytes free space to leave in the directory
     * @param budgetBytes  the most ring data bytes the local ranks take in all; 0: what the directory has free
     * @param spinNanos    polling time before sleeping, negative for the default
     * @throws IllegalArgumentException when the ring size is not a power of two of at least 4 KiB
     */
    public ShmSettings {
        if (ringBytes < 4096 || Integer.bitCount(ringBytes) != 1) {
            throw new IllegalArgumentException("shmRingBytes must be a power of two of at least 4096, got " + ringBytes);
        }
    }

    /**
     * The settings the system properties give.
     *
     * @return the settings
     */
    public static ShmSettings fromSystemProperties() {
        return new ShmSettings(TransportSettings.SHARED_MEMORY.get(), TransportSettings.SHM_DIR.get(),
                TransportSettings.SHM_RING_BYTES.get(), TransportSettings.SHM_RESERVE_BYTES.get(),
                TransportSettings.SHM_BUDGET_BYTES.get(), TransportSettings.SHM_SPIN_MICROS.get() * 1000L);
    }

    /**
     * How long the reading thread of one of {@code locals} ranks on this host polls before it sleeps:
     * the setting when given, else 200 us, or none when the host has fewer processors than local
     * ranks (a thread polling for a peer that waits for a processor only delays that peer).
     *
     * @param locals the ranks of the group on this host
     * @return nanoseconds to poll
     */
    public long spinNanosFor(int locals) {
        if (spinNanos >= 0) {
            return spinNanos;
        }
        return locals > Runtime.getRuntime().availableProcessors() ? 0L : DEFAULT_SPIN_NANOS;
    }

    /**
     * Why shared memory cannot be used here, or null when it can (may load the native library: call
     * where blocking is allowed).
     *
     * @return the reason, or null
     */
    public String unavailableReason() {
        if (!enabled) {
            return "switched off (rc.transport.sharedMemory=false)";
        }
        if (!PlatformDependent.hasUnsafe()) {
            return "Netty has no access to sun.misc.Unsafe here (on JDK 24 and later it needs the JVM option"
                    + " --sun-misc-unsafe-memory-access=allow)";
        }
        if (!NativeWaits.isAvailable()) {
            return "the native library for futex waits is not in use (" + NativeWaits.unavailableReason() + ")";
        }
        if (!Files.isDirectory(directory) || !Files.isWritable(directory)) {
            return directory + " is not a writable directory";
        }
        return null;
    }

    /**
     * {@link #unavailableReason()}, and whether {@link #directory()} has room for the segment of
     * {@code locals} ranks with {@link #reserveBytes()} left over.
     *
     * @param locals the ranks of the group on this host
     * @return why shared memory cannot be used for them, or null when it can
     */
    public String unavailableReason(int locals) {
        String why = unavailableReason();
        if (why != null) {
            return why;
        }
        long free;
        try {
            free = Files.getFileStore(directory).getUsableSpace();
        } catch (java.io.IOException e) {
            return "cannot read the free space of " + directory + ": " + e.getMessage();
        }
        if (ringBytesFor(locals, free) < 0) {
            int least = Math.min(ringBytes, MIN_RING_BYTES);
            long need = ShmSegment.fixedBytes(locals) + ringsHeld(locals) * least + reserveBytes;
            return directory + " has " + (free >> 20) + " MiB free" + (budgetBytes > 0 ? " and a budget of "
                    + (budgetBytes >> 20) + " MiB (rc.transport.shmBudgetBytes)" : "") + ", " + locals
                    + " local ranks need " + ((need + (1 << 20) - 1) >> 20) + " MiB (" + ringsHeld(locals)
                    + " rings of at least " + (least >> 10) + " KiB, plus " + (reserveBytes >> 20)
                    + " MiB left for others, rc.transport.shmReserveBytes)";
        }
        return null;
    }

    /**
     * The rings whose data a host must hold at once for a ring size to be chosen: every ring up to
     * 5 local ranks, else four per rank (its ring neighbours both ways and two more partners);
     * the others are taken from the budget as senders first use them ({@link ShmSegment#reserveRing()}).
     *
     * @param locals the ranks of the group on this host
     * @return rings
     */
    static long ringsHeld(int locals) {
        return Math.min((long) locals * (locals - 1), 4L * locals);
    }

    /**
     * The ring data bytes the local ranks may take in all, in a directory with {@code free} bytes:
     * what it holds beyond the segment's fixed part and {@link #reserveBytes()}, at most
     * {@link #budgetBytes()} when that is set.
     *
     * @param locals the ranks of the group on this host
     * @param free   the directory's free bytes
     * @return bytes, negative when not even the fixed part fits
     */
    public long budgetFor(int locals, long free) {
        long room = free - reserveBytes - ShmSegment.fixedBytes(locals);
        return budgetBytes > 0 ? Math.min(budgetBytes, room) : room;
    }

    /**
     * The ring size for {@code locals} ranks in a directory with {@code free} bytes: {@link #ringBytes()},
     * or the largest power of two below it, down to {@value #MIN_RING_BYTES} bytes, of which
     * {@link #budgetFor} holds {@link #ringsHeld} rings (a container's 64 MB {@code /dev/shm} holds
     * 2 MiB rings for up to 4 ranks, smaller ones for 8).
     *
     * @param locals the ranks of the group on this host
     * @param free   the directory's free bytes
     * @return the ring size, or -1 when not even the smallest fits
     */
    public int ringBytesFor(int locals, long free) {
        long budget = budgetFor(locals, free);
        for (int r = ringBytes; r >= Math.min(ringBytes, MIN_RING_BYTES); r >>= 1) {
            if (ringsHeld(locals) * r <= budget) {
                return r;
            }
        }
        return -1;
    }
}
