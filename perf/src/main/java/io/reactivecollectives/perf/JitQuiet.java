package io.reactivecollectives.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * Whether the JIT compilers of this JVM have gone quiet: they spent at most {@link #QUIET_MILLIS}
 * compiling in each of the last {@link #QUIET_WINDOWS} windows of {@link #WINDOW_NANOS} (the JVM's own counter,
 * {@link CompilationMXBean#getTotalCompilationTime()}, summed over the compiler threads). A
 * benchmark that times a few microseconds per collective while C2 still recompiles its data path
 * (deoptimised when a new caller or type reaches it) measures the compilers on the shared cores, not
 * the collective; the warm-up before the first timing runs until this says quiet (or a limit). One
 * quiet second is not enough: a method deoptimised back to the profiling tier is compiled again only
 * once its counters reach the thresholds again, seconds later on a busy machine.
 * Without the counter (a JVM that has none) it is quiet at once.
 */
final class JitQuiet {

    /** The window compile time is summed over. */
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The most compile time within one window that still counts as quiet. */
    static final long QUIET_MILLIS = 20;
    /** How many windows in a row must be quiet. */
    static final int QUIET_WINDOWS = 3;

    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    private final boolean counted = compiler != null && compiler.isCompilationTimeMonitoringSupported();
    private long windowStart = Long.MIN_VALUE;
    private long windowCompileMillis;
    private long lastWindowMillis = -1;
    private int quietWindows;

    /**
     * Updates the window with the compile time now; true once a whole window was quiet.
     *
     * @param nanoTime {@link System#nanoTime()} now
     * @return whether the last whole windows were quiet
     */
    boolean quiet(long nanoTime) {
        if (!counted) {
            return true;
        }
        long total = compiler.getTotalCompilationTime();
        if (windowStart == Long.MIN_VALUE) {
            windowStart = nanoTime;
            windowCompileMillis = total;
            return false;
        }
        if (nanoTime - windowStart >= WINDOW_NANOS) {
            lastWindowMillis = total - windowCompileMillis;
            quietWindows = lastWindowMillis <= QUIET_MILLIS ? quietWindows + 1 : 0;
            windowStart = nanoTime;
            windowCompileMillis = total;
        }
        return quietWindows >= QUIET_WINDOWS;
    }

    /** The last whole window's compile time, for the benchmark's comment line. */
    String describe() {
        if (!counted) {
            return "no compile-time counter";
        }
        return lastWindowMillis < 0 ? "no whole window yet"
                : lastWindowMillis + " ms compiling in the last second on rank 0";
    }
}
