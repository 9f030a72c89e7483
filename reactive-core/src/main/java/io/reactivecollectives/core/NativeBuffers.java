package io.reactivecollectives.core;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Off-heap memory seen as NIO buffers: a {@link ByteBuffer} over a native address, and the address
 * of a direct buffer of any element type, without a copy.
 *
 * <p>On JDK 22 and later this uses {@code java.lang.foreign.MemorySegment} (found reflectively, the
 * library is compiled for JDK 17): {@code ofAddress(a).reinterpret(n).asByteBuffer()} and
 * {@code ofBuffer(b).address()}. {@code reinterpret} is a restricted method: the JVM prints a
 * one-time warning unless started with {@code --enable-native-access=ALL-UNNAMED} (or the
 * library's module). On JDK 17 to 21 it uses {@code sun.misc.Unsafe} (module
 * {@code jdk.unsupported}) on the {@code address} and {@code capacity} fields of
 * {@link java.nio.Buffer}, as Netty reads them: a buffer over an address is a duplicate of a
 * zero-length direct buffer with those fields set. Where neither works the operations throw
 * {@link UnsupportedOperationException} saying so.
 */
final class NativeBuffers {

    private static final ByteBuffer TEMPLATE = ByteBuffer.allocateDirect(0);

    /** MemorySegment handles: ofAddress(long), reinterpret(long), asByteBuffer(), ofBuffer(Buffer), address(). */
    private static final MethodHandle[] SEGMENT = segmentHandles();

    @SuppressWarnings("removal")
    private static final sun.misc.Unsafe UNSAFE = SEGMENT != null ? null : unsafe();
    private static final long ADDRESS = fieldOffset("address");
    private static final long CAPACITY = fieldOffset("capacity");
    private static final long LIMIT = fieldOffset("limit");

    private NativeBuffers() {
    }

    /** Whether this JVM can see native addresses as buffers (and buffers' addresses). */
    static boolean available() {
        return SEGMENT != null || (UNSAFE != null && ADDRESS >= 0 && CAPACITY >= 0 && LIMIT >= 0);
    }

    /** A writable, little-endian buffer of {@code length} bytes at {@code address}. */
    static ByteBuffer view(long address, int length) {
        requireAvailable();
        try {
            if (SEGMENT != null) {
                Object segment = SEGMENT[1].invoke(SEGMENT[0].invoke(address), (long) length);
                return ((ByteBuffer) SEGMENT[2].invoke(segment)).order(ByteOrder.LITTLE_ENDIAN);
            }
            ByteBuffer b = TEMPLATE.duplicate();
            UNSAFE.putLong(b, ADDRESS, address);
            UNSAFE.putInt(b, CAPACITY, length);
            UNSAFE.putInt(b, LIMIT, length);
            return b.order(ByteOrder.LITTLE_ENDIAN);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot view " + length + " bytes at address " + address, t);
        }
    }

    /** The address of the element at a direct buffer's position. */
    static long address(Buffer direct) {
        requireAvailable();
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer: " + direct);
        }
        try {
            if (SEGMENT != null) {
                // ofBuffer covers [position, limit)
                return (long) SEGMENT[4].invoke(SEGMENT[3].invoke(direct));
            }
            return UNSAFE.getLong(direct, ADDRESS) + (long) direct.position() * elementSize(direct);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot read the address of " + direct, t);
        }
    }

    static int elementSize(Buffer b) {
        if (b instanceof ByteBuffer) {
            return 1;
        }
        if (b instanceof java.nio.ShortBuffer || b instanceof java.nio.CharBuffer) {
            return 2;
        }
        if (b instanceof java.nio.IntBuffer || b instanceof java.nio.FloatBuffer) {
            return 4;
        }
        return 8;
    }

    private static void requireAvailable() {
        if (!available()) {
            throw new UnsupportedOperationException("this JVM gives no access to native addresses as buffers: "
                    + "needs JDK 22+ (java.lang.foreign) or sun.misc.Unsafe (module jdk.unsupported) on JDK 17-21");
        }
    }

    private static MethodHandle[] segmentHandles() {
        if (Runtime.version().feature() < 22) {
            return null;
        }
        try {
            Class<?> seg = Class.forName("java.lang.foreign.MemorySegment");
            // this class's own lookup: reinterpret is caller-sensitive (restricted), a public lookup cannot find it
            MethodHandles.Lookup l = MethodHandles.lookup();
            return new MethodHandle[] {
                l.findStatic(seg, "ofAddress", MethodType.methodType(seg, long.class)),
                l.findVirtual(seg, "reinterpret", MethodType.methodType(seg, long.class)),
                l.findVirtual(seg, "asByteBuffer", MethodType.methodType(ByteBuffer.class)),
                l.findStatic(seg, "ofBuffer", MethodType.methodType(seg, Buffer.class)),
                l.findVirtual(seg, "address", MethodType.methodType(long.class)),
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    @SuppressWarnings("removal")
    private static sun.misc.Unsafe unsafe() {
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    @SuppressWarnings("removal")
    private static long fieldOffset(String name) {
        if (UNSAFE == null) {
            return -1;
        }
        try {
            return UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField(name));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }
}
