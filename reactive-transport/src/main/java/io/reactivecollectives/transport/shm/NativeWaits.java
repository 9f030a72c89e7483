package io.reactivecollectives.transport.shm;

/**
 * Waiting on, and waking, a 32-bit word in memory shared between processes: Linux futexes
 * ({@code FUTEX_WAIT}/{@code FUTEX_WAKE} without the private flag, so they work across processes that
 * map the same file), from the shared memory's JNI library ({@link ShmNativeLibrary}, {@code librc_shm.so}).
 *
 * <p>Used by the shared-memory transport: a rank that found nothing to read for a while sleeps on
 * its word and a peer that wrote to it wakes it, which costs one system call on each side instead
 * of a socket's write, poll and read. Available only where the native library is
 * ({@link #isAvailable()}); callers fall back to sockets otherwise.
 */
final class NativeWaits {

    /** {@link #await} returned because the word was woken (or the wait was interrupted by a signal). */
    static final int WOKEN = 0;

    private static volatile Boolean available;

    private NativeWaits() {
    }

    /**
     * Whether futex waits can be used: the native library is loaded (this loads it, blocking, on
     * the first call) and has these entry points.
     *
     * @return whether {@link #await} and {@link #wake} work
     */
    static boolean isAvailable() {
        Boolean a = available;
        if (a == null) {
            available = a = ShmNativeLibrary.SHARED.has(NativeWaits::waitsAbi0);
        }
        return a;
    }

    /**
     * Why {@link #isAvailable()} is false, or an empty string when it is true.
     *
     * @return the reason
     */
    static String unavailableReason() {
        if (isAvailable()) {
            return "";
        }
        return ShmNativeLibrary.SHARED.reasonWithout("the futex entry points");
    }

    /**
     * Sleeps while the int at {@code address} holds {@code expected}, until woken or {@code timeoutNanos}
     * passed. The address must stay mapped for the call's whole duration.
     *
     * @param address      address of an aligned 32-bit word in shared memory
     * @param expected     the value that means "sleep"
     * @param timeoutNanos the longest wait
     * @return {@link #WOKEN}, or the {@code errno} of the wait ({@code EAGAIN}: the word had changed;
     *         {@code ETIMEDOUT})
     */
    static int await(long address, int expected, long timeoutNanos) {
        return futexWait0(address, expected, timeoutNanos);
    }

    /**
     * Wakes up to {@code count} waiters on the int at {@code address}.
     *
     * @param address address of an aligned 32-bit word in shared memory
     * @param count   how many waiters to wake
     * @return the number woken, or minus the {@code errno}
     */
    static int wake(long address, int count) {
        return futexWake0(address, count);
    }

    private static native int waitsAbi0();

    private static native int futexWait0(long address, int expected, long timeoutNanos);

    private static native int futexWake0(long address, int count);
}
