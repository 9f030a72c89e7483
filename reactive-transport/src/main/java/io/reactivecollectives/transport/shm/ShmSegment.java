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
 * <p>Layout: a header (magic, version, local ranks, ring size, the host's budget for ring data and
 * what of it is taken; then the wake-up words, one per cache line), then for each pair
 * {@code (from, to)} a ring's control block and data. The file is sparse: the creator writes the
 * header and the control blocks, and a ring's data takes memory only where a page is touched, so a
 * ring no rank writes to costs its control page and nothing more. A sender takes its ring's data bytes from the budget before its
 * first write ({@link #reserveRing()}); a ring the budget cannot hold is not used (its pair keeps its
 * socket). The creator sets the budget within the directory's free space, so the pages touched within
 * it do not meet a full file system (a bus error on first touch).
 *
 * <p>Mapped in parts of whole rings of at most {@value #PART_BYTES} bytes each (a mapping of the
 * JDK is at most 2 GiB), so 64 local ranks' 4,032 rings of 2 MiB fit; nothing of a part is resident
 * until touched.
 *
 * <p>Unmapped when the last user lets go ({@link #retain()}/{@link #release()}): the poller thread
 * and every sender hold it while they touch the memory.
 */
public final class ShmSegment {

    private static final long MAGIC = 0x5243_5348_4d5f_3031L;  // "RCSHM_01"
    private static final int VERSION = 2;
    private static final int BUDGET = 24;
    private static final int TAKEN = 32;
    /** The most bytes one mapped part of the rings spans. */
    static final int PART_BYTES = 1 << 30;
    private static final int WORDS = 64;
    private static final int WORD_STRIDE = 64;
    /** Wake-up word states. */
    static final int AWAKE = 0;
    static final int SLEEPING = 1;

    private final Path path;
    /** The header: magic, layout, budget, wake-up words. */
    private final MappedByteBuffer map;
    private final long address;
    /** The rings, {@link #ringsPerPart} to a part, and each part's address. */
    private final MappedByteBuffer[] parts;
    private final long[] partAddresses;
    private final int ringsPerPart;
    private final int locals;
    private final int ringBytes;
    private final AtomicInteger refs = new AtomicInteger(1);

    private ShmSegment(Path path, FileChannel ch, MappedByteBuffer map, int locals, int ringBytes) throws IOException {
        this.path = path;
        this.map = map;
        this.address = PlatformDependent.directBufferAddress(map);
        this.locals = locals;
        this.ringBytes = ringBytes;
        long stride = ShmRing.CONTROL_BYTES + (long) ringBytes;
        long rings = (long) locals * (locals - 1);
        this.ringsPerPart = (int) Math.max(1, Math.min(rings, PART_BYTES / stride));
        int n = (int) ((rings + ringsPerPart - 1) / ringsPerPart);
        this.parts = new MappedByteBuffer[n];
        this.partAddresses = new long[n];
        try {
            for (int i = 0; i < n; i++) {
                long first = (long) i * ringsPerPart;
                long span = Math.min(ringsPerPart, rings - first) * stride;
                parts[i] = ch.map(FileChannel.MapMode.READ_WRITE, headerBytes(locals) + first * stride, span);
                partAddresses[i] = PlatformDependent.directBufferAddress(parts[i]);
            }
        } catch (IOException | RuntimeException e) {
            unmapParts();
            throw e;  // the caller unmaps the header
        }
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
     * The bytes a segment takes whatever its ranks send: the header and every ring's control block
     * (each is read by its consumer from the start).
     *
     * @param locals local ranks
     * @return bytes
     */
    public static long fixedBytes(int locals) {
        return headerBytes(locals) + (long) locals * (locals - 1) * ShmRing.CONTROL_BYTES;
    }

    /**
     * {@link #create(Path, int, int, long)} with a budget that holds every ring.
     *
     * @param path      the file to create (must not exist)
     * @param locals    local ranks, at least 2
     * @param ringBytes data bytes of each ring, a power of two
     * @return the mapped segment
     * @throws IOException when the file cannot be created, written or mapped (the file is removed then)
     */
    public static ShmSegment create(Path path, int locals, int ringBytes) throws IOException {
        return create(path, locals, ringBytes, (long) locals * (locals - 1) * ringBytes);
    }

    /**
     * Creates and maps a new segment file at {@code path}: sparse, its header and every ring's
     * control block written with zeros (so a full file system fails here, with an
     * {@link IOException}), the rings' data taken page by page as they are written, within
     * {@code budgetBytes} in all ({@link #reserveRing()}).
     *
     * @param path        the file to create (must not exist)
     * @param locals      local ranks, at least 2
     * @param ringBytes   data bytes of each ring, a power of two
     * @param budgetBytes ring data bytes the local ranks may take in all
     * @return the mapped segment
     * @throws IOException when the file cannot be created, written or mapped (the file is removed then)
     */
    public static ShmSegment create(Path path, int locals, int ringBytes, long budgetBytes) throws IOException {
        long size = sizeFor(locals, ringBytes);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[1]), size - 1);  // the file's length; nothing before it is taken
            ByteBuffer zeros = ByteBuffer.allocateDirect(ShmRing.CONTROL_BYTES);
            ch.write(ByteBuffer.allocateDirect(headerBytes(locals)), 0);
            long stride = ShmRing.CONTROL_BYTES + (long) ringBytes;
            for (long ring = 0, rings = (long) locals * (locals - 1); ring < rings; ring++) {
                zeros.clear();
                ch.write(zeros, headerBytes(locals) + ring * stride);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, headerBytes(locals));
            ShmSegment s;
            try {
                s = new ShmSegment(path, ch, map, locals, ringBytes);
            } catch (IOException | RuntimeException e) {
                PlatformDependent.freeDirectBuffer(map);
                throw e;
            }
            map.putInt(8, VERSION);
            map.putInt(12, locals);
            map.putInt(16, ringBytes);
            map.putLong(BUDGET, budgetBytes);
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
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, headerBytes(locals));
            if ((long) ShmRing.LONGS.getAcquire(map, 0) != MAGIC || map.getInt(8) != VERSION
                    || map.getInt(12) != locals || map.getInt(16) != ringBytes) {
                PlatformDependent.freeDirectBuffer(map);
                throw new IOException(path + " is not a segment of this layout (" + locals + " ranks, rings of "
                        + ringBytes + " bytes)");
            }
            try {
                return new ShmSegment(path, ch, map, locals, ringBytes);
            } catch (IOException | RuntimeException e) {
                PlatformDependent.freeDirectBuffer(map);
                throw e;
            }
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
        int part = index / ringsPerPart;
        long offset = (long) (index % ringsPerPart) * (ShmRing.CONTROL_BYTES + ringBytes);
        return new ShmRing(parts[part], partAddresses[part], (int) offset, ringBytes);
    }

    /**
     * Takes one ring's data bytes from the host's budget, for a sender's first write to it.
     *
     * @return false when the budget cannot hold them (the ring must not be written)
     */
    boolean reserveRing() {
        long budget = map.getLong(BUDGET);
        for (;;) {
            long taken = (long) ShmRing.LONGS.getVolatile(map, TAKEN);
            if (taken + ringBytes > budget) {
                return false;
            }
            if (ShmRing.LONGS.compareAndSet(map, TAKEN, taken, taken + ringBytes)) {
                return true;
            }
        }
    }

    /**
     * The ring data bytes the local ranks have taken from the budget so far.
     *
     * @return bytes
     */
    public long takenBytes() {
        return (long) ShmRing.LONGS.getVolatile(map, TAKEN);
    }

    /**
     * The ring data bytes the local ranks may take in all.
     *
     * @return bytes
     */
    public long budgetBytes() {
        return map.getLong(BUDGET);
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
            unmap();
        }
    }

    private void unmap() {
        unmapParts();
        PlatformDependent.freeDirectBuffer(map);
    }

    private void unmapParts() {
        for (MappedByteBuffer part : parts) {
            if (part != null) {
                PlatformDependent.freeDirectBuffer(part);
            }
        }
    }
}
