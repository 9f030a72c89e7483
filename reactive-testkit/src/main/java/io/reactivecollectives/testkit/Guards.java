package io.reactivecollectives.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The two guards of a test JVM: a record of buffer leaks reported by Netty's leak detector (at
 * PARANOID once {@link #install()} ran) and a record of blocking calls BlockHound caught on
 * non-blocking threads ({@link RecordingBlockHoundIntegration}). {@link GuardsExtension} installs
 * both and fails a test class when either record is non-empty.
 */
public final class Guards {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static final List<String> BLOCKING = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    private Guards() {
    }

    /**
     * BlockHound's copy of Byte Buddy reads this property: true keeps it off {@code sun.misc.Unsafe},
     * whose use JDK 24 and later warn about (BlockHound installs without it).
     */
    static final String BYTE_BUDDY_SAFE = "reactor.blockhound.shaded.net.bytebuddy.safe";

    /**
     * Sets Netty's leak detection to PARANOID (every buffer tracked) and installs the recording leak
     * detector factory. The factory only reaches detectors created afterwards, and Netty creates its
     * buffer allocators' detector once, so this must run before Netty's buffers are first used in
     * the JVM ({@link GuardsSessionListener} runs it when the test launcher starts). Also keeps
     * BlockHound, when it is installed later, off {@code sun.misc.Unsafe} (unless the JVM was
     * started with {@code -Dreactor.blockhound.shaded.net.bytebuddy.safe=false}). Idempotent.
     */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        if (System.getProperty(BYTE_BUDDY_SAFE) == null) {
            System.setProperty(BYTE_BUDDY_SAFE, "true");
        }
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    /**
     * Whether {@link #install()} ran.
     *
     * @return true once installed
     */
    public static boolean isInstalled() {
        return installed;
    }

    /** How many frames of the caller a recorded blocking call keeps. */
    private static final int CALLER_FRAMES = 12;

    static void recordBlocking(String description) {
        BLOCKING.add(description + " on thread " + Thread.currentThread().getName() + callers());
    }

    /** The frames above the blocking call, from the first outside the JDK and BlockHound. */
    private static String callers() {
        StringBuilder out = new StringBuilder();
        int shown = 0;
        for (StackTraceElement frame : new Throwable().getStackTrace()) {
            String c = frame.getClassName();
            boolean platform = c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.")
                    || c.startsWith("reactor.blockhound.") || c.equals(Guards.class.getName())
                    || c.startsWith(RecordingBlockHoundIntegration.class.getName());
            if (shown == 0 && platform) {
                continue;
            }
            out.append("\n    called from ").append(frame);
            if (++shown == CALLER_FRAMES) {
                break;
            }
        }
        return out.toString();
    }

    /**
     * Makes pending leak reports visible: collects garbage, then allocates through the pooled
     * allocator so that the detector polls its queue of collected, unreleased buffers.
     */
    public static void collectLeaks() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            for (int j = 0; j < 8; j++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                b.release();
                ByteBuf h = PooledByteBufAllocator.DEFAULT.heapBuffer(16);
                h.release();
            }
        }
    }

    /**
     * Leaks reported so far and not yet drained.
     *
     * @return Netty's leak reports, with the recorded accesses
     */
    public static List<String> leaks() {
        return new ArrayList<>(LEAKS);
    }

    /**
     * Blocking calls caught so far and not yet drained.
     *
     * @return the blocking methods, each with the thread it was called on
     */
    public static List<String> blockingCalls() {
        return new ArrayList<>(BLOCKING);
    }

    /**
     * Collects garbage until the leak detector has reported something or {@code timeout} passed,
     * then returns and forgets the recorded leaks (for tests that plant one on purpose).
     *
     * @param timeout how long to keep collecting
     * @return the leaks recorded until now, empty when none showed within {@code timeout}
     */
    public static List<String> awaitLeaks(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> leaks = List.of();
        while (leaks.isEmpty() && System.nanoTime() < deadline) {
            collectLeaks();
            leaks = drainLeaks();
        }
        return leaks;
    }

    /**
     * Returns and forgets the recorded leaks (for tests that plant one on purpose).
     *
     * @return the leaks recorded until now
     */
    public static List<String> drainLeaks() {
        List<String> l = leaks();
        LEAKS.removeAll(l);
        return l;
    }

    /**
     * Returns and forgets the recorded blocking calls (for tests that plant one on purpose).
     *
     * @return the blocking calls recorded until now
     */
    public static List<String> drainBlockingCalls() {
        List<String> l = blockingCalls();
        BLOCKING.removeAll(l);
        return l;
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval, long maxActive) {
            return new RecordingDetector<>(resource, samplingInterval);
        }

        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
            return new RecordingDetector<>(resource, samplingInterval);
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected.");
            super.reportUntracedLeak(resourceType);
        }
    }
}
