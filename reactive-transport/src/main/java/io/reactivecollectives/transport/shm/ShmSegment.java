package io.reactivecollectives.transport.shm;

import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared memory of the ranks of one group on one host: one file (under {@code /dev/shm}),
 * mapped by every local rank and unlinked as soon as all have mapped it, so that nothing is left
 * behind whichever rank dies later. It holds a wake-up word per local rank (a futex,
 * {@link NativeWaits}) and a {@link ShmRing} for each ordered pair of local ranks.
 *
 * <p>Layout: a header (magic, version, local ranks, ring size; then the wake-up words, one per
 * cache line), then for each pair {@code (from, to)} a ring's control block and data. The creator
 * writes the whole file with zeros before mapping it, so a full file system fails here with an
 * {@link IOException} instead of with a bus error on first touch.
 *
 * <p>Unmapped when the last user lets go ({@link #retain()}/{@link #release()}): the poller thread
 * and every sender hold it while they touch the memory.
 */
public final class ShmSegment {

    private static final long MAGIC = 0x5243_5348_4d5f_3031L;  // "RCSHM_01"
    private static final int VERSION = 1;
    private static final int WORDS = 64;
    private static final int WORD_STRIDE = 64;
    /** Wake-up word states. */
    static final int AWAKE = 0;
    static final int SLEEPING = 1;

    private final Path path;
    private final MappedByteBuffer map;
    private final long address;
    private final int locals;
    private final int ringBytes;
    private final int headerBytes;
    private final AtomicInteger refs = new AtomicInteger(1);

    private ShmSegment(Path path, MappedByteBuffer map, int locals, int ringBytes) {
        this.path = path;
        this.map = map;
        this.address = PlatformDependent.directBufferAddress(map);
        this.locals = locals;
        this.ringBytes = ringBytes;
        this.headerBytes = headerBytes(locals);
    }

    private static int headerBytes(int locals) {
        int raw = WORDS + WORD_STRIDE * locals;
        return (raw + 4095) & ~4095;
    }

    /**
     * The file size for {@code locals} ranks with rings of {@code ringBytes}.
     *
     * @param locals    local ranks
     * @param ringBytes data bytes of one ring
     * @return bytes of the file
     */
    public static long sizeFor(int locals, int ringBytes) {
        long rings = (long) locals * (locals - 1);
        return headerBytes(locals) + rings * (ShmRing.CONTROL_BYTES + (long) ringBytes);
    }

    /**
     * Creates, fills with zeros and maps a new segment file at {@code path}.
     *
     * @param path      the file to create (must not exist)
     * @param locals    local ranks, at least 2
     * @param ringBytes data bytes of each ring, a power of two
     * @return the mapped segment
     * @throws IOException when the file cannot be created, filled or mapped (the file is removed then)
     */
    public static ShmSegment create(Path path, int locals, int ringBytes) throws IOException {
        long size = sizeFor(locals, ringBytes);
        if (size > Integer.MAX_VALUE) {
            throw new IOException("a shared-memory segment of " + size + " bytes is too large");
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = 0; at < size; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
                at += ch.write(zeros, at);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            ShmSegment s = new ShmSegment(path, map, locals, ringBytes);
            map.putInt(8, VERSION);
            map.putInt(12, locals);
            map.putInt(16, ringBytes);
            ShmRing.LONGS.setRelease(map, 0, MAGIC);
            return s;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(path);
            throw e;
        }
    }

    /**
     * Maps the segment another local rank created at {@code path}.
     *
     * @param path      the file
     * @param locals    local ranks expected
     * @param ringBytes ring size expected
     * @return the mapped segment
     * @throws IOException when it cannot be mapped or was made for another layout
     */
    public static ShmSegment attach(Path path, int locals, int ringBytes) throws IOException {
        long size = sizeFor(locals, ringBytes);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (ch.size() != size) {
                throw new IOException(path + " has " + ch.size() + " bytes, expected " + size);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            if ((long) ShmRing.LONGS.getAcquire(map, 0) != MAGIC || map.getInt(8) != VERSION
                    || map.getInt(12) != locals || map.getInt(16) != ringBytes) {
                throw new IOException(path + " is not a segment of this layout (" + locals + " ranks, rings of "
                        + ringBytes + " bytes)");
            }
            return new ShmSegment(path, map, locals, ringBytes);
        }
    }

    /**
     * The file (unlinked once every local rank mapped it).
     *
     * @return its path
     */
    public Path path() {
        return path;
    }

    /** Removes the file; the mappings stay valid. */
    public void unlink() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // gone already, or the directory is not ours to change: nothing more to do
        }
    }

    /**
     * Data bytes of each ring.
     *
     * @return the ring size
     */
    public int ringBytes() {
        return ringBytes;
    }

    /** Number of local ranks. */
    int locals() {
        return locals;
    }

    /** The ring from local rank {@code from} to local rank {@code to}. */
    ShmRing ring(int from, int to) {
        int index = from * (locals - 1) + (to < from ? to : to - 1);
        long offset = headerBytes + (long) index * (ShmRing.CONTROL_BYTES + ringBytes);
        return new ShmRing(map, address, (int) offset, ringBytes);
    }

    private int word(int local) {
        return WORDS + WORD_STRIDE * local;
    }

    /** Marks local rank {@code local} asleep (a full fence follows). */
    void markSleeping(int local) {
        ShmRing.INTS.setVolatile(map, word(local), SLEEPING);
    }

    /** Marks local rank {@code local} awake. */
    void markAwake(int local) {
        ShmRing.INTS.setVolatile(map, word(local), AWAKE);
    }

    /** Sleeps on {@code local}'s word while it says asleep, for at most {@code nanos}. */
    void sleep(int local, long nanos) {
        NativeWaits.await(address + word(local), SLEEPING, nanos);
    }

    /** Wakes local rank {@code local} if it sleeps (a full fence first, after the caller's writes). */
    void wake(int local) {
        java.lang.invoke.VarHandle.fullFence();
        int w = word(local);
        if ((int) ShmRing.INTS.getVolatile(map, w) == SLEEPING && ShmRing.INTS.compareAndSet(map, w, SLEEPING, AWAKE)) {
            NativeWaits.wake(address + w, 1);
        }
    }

    /**
     * Takes a hold on the mapping.
     *
     * @return false when it is already unmapped (the caller must not touch it)
     */
    boolean retain() {
        for (;;) {
            int r = refs.get();
            if (r == 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    /** Lets go of a hold; the last one unmaps the memory. */
    public void release() {
        if (refs.decrementAndGet() == 0) {
            PlatformDependent.freeDirectBuffer(map);
        }
    }
}
