package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.core.settings.CoreSettings;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The native reduction kernels: C loops compiled for AVX-512, AVX2 and baseline x86-64 (the CPU's
 * widest is picked once, at load), which {@link ReduceKernels} calls through JNI for every dtype but
 * BOOL over off-heap memory. They give the same results as the Java kernels, element for element
 * (wrapping integers, Java's {@code Math.min}/{@code Math.max} for floats, FLOAT16 and BFLOAT16
 * computed in float32 and rounded to nearest-even; FLOAT16 converted by the F16C or AVX-512
 * instructions where the CPU has them); BOOL and heap buffers stay in Java.
 *
 * <h2>Why</h2>
 * HotSpot's C2 on JDK 17 does not vectorise loops over off-heap memory, so the Java kernels copy
 * blocks into arrays, reduce them there and copy them back: four passes through the cache for one.
 * The C loop reduces in place with the widest vectors the CPU has.
 *
 * <h2>Where the library comes from</h2>
 * The build compiles {@code reactive-core/src/main/c/rc_reduce_kernels.c} with the machine's C
 * compiler into the jar, under {@code io/reactivecollectives/core/kernels/native/<os>-<arch>/}.
 * {@link ReduceKernels#load()} (or {@link ReduceKernels#loadAsync()}) loads it from there (from a
 * jar, through a temporary file that is deleted once loaded); a reduction before that loads it on
 * its own thread if that thread may block, else runs the Java kernels and starts
 * {@code loadAsync()} (see {@link ReduceKernels}). When it cannot be (no compiler at build time, another OS, {@code -Drc.kernels.native=false},
 * a load error), {@link #isAvailable()} is false, {@link #unavailableReason()} says why, and the Java
 * kernels do the work. {@code -Drc.kernels.native.library=/path/to/librc_reduce_kernels.so} loads
 * a library built elsewhere. On JDK 24 and later the JVM warns once about the native load unless it
 * is started with {@code --enable-native-access=ALL-UNNAMED}.
 */
public final class NativeReduceKernels {

    /** The ABI this class expects from the library ({@code abiVersion0} in the C source). */
    static final int ABI_VERSION = 3;

    /** File name of the library. */
    static final String LIBRARY_FILE = "librc_reduce_kernels.so";

    private static final Logger LOG = LoggerFactory.getLogger(NativeReduceKernels.class);

    private static final String NOT_LOADED_YET = "not loaded yet (ReduceKernels.load() or loadAsync() loads them;"
            + " a thread that may not block starts loadAsync() and reduces in Java meanwhile)";

    private static final Object LOCK = new Object();

    private static final AtomicBoolean LOADING_ASYNC = new AtomicBoolean();

    /** Null until a load was tried; then "" when the library is in use, else why not. */
    private static volatile String outcome;

    /** Whether the library is loaded and in use (read on every reduction). */
    private static volatile boolean available;

    private NativeReduceKernels() {
    }

    /**
     * True when the native kernels are loaded and in use. Not loaded yet, it loads them first as
     * a reduction would ({@link #ensureLoaded()}): on a thread that may not block it answers false
     * and they load in the background.
     *
     * @return whether the native kernels are loaded and usable
     */
    public static boolean isAvailable() {
        ensureLoaded();
        return available;
    }

    /**
     * The native kernels in words, for logs and benchmark headers: {@code "native (FLOAT16
     * conversions: avx512f)"} (or {@code f16c}, {@code portable}); when they are not in use,
     * {@code "java"} and why. Loads them first as {@link #isAvailable()} does.
     *
     * @return the description
     */
    public static String describe() {
        ensureLoaded();
        return available
                ? "native (FLOAT16 conversions: " + halfConversions0() + ")"
                : "java (native kernels not in use: " + reason() + ")";
    }

    /**
     * Why the native kernels are not in use; empty when they are. Loads them first as {@link #isAvailable()} does.
     *
     * @return the reason, or empty when they are available
     */
    public static Optional<String> unavailableReason() {
        ensureLoaded();
        return available ? Optional.empty() : Optional.of(reason());
    }

    private static String reason() {
        String o = outcome;
        return o == null ? NOT_LOADED_YET : o;
    }

    /**
     * Loads the library unless a load was tried already (then returns at once); blocking (it may
     * copy the library out of the jar), idempotent and thread-safe: concurrent callers wait for one
     * load. Never throws for a library that cannot be loaded: {@link #unavailableReason()} says why.
     */
    static void load() {
        if (outcome != null) {
            return;
        }
        synchronized (LOCK) {
            if (outcome == null) {
                String reason = loadAndCheck();
                available = reason == null;
                outcome = reason == null ? "" : reason;
            }
        }
    }

    /** Whether a load was tried (tests: the state before any reduction). */
    static boolean loadTried() {
        return outcome != null;
    }

    /** {@link #load()} on {@link BlockingScheduler}; completes at once when a load was tried already. */
    static Mono<Void> loadAsync() {
        return Mono.defer(() -> outcome != null
                ? Mono.<Void>empty()
                : Mono.<Void>fromRunnable(NativeReduceKernels::load).subscribeOn(BlockingScheduler.get()));
    }

    /**
     * Before a reduction: returns at once when a load was tried; else loads on this thread if it
     * may block, or, on a thread that may not (a Reactor non-blocking thread, a Netty event loop),
     * starts {@link #loadAsync()} once and returns, so the caller reduces in Java this time.
     */
    static void ensureLoaded() {
        if (outcome != null) {
            return;
        }
        if (!onNonBlockingThread()) {
            load();
        } else if (LOADING_ASYNC.compareAndSet(false, true)) {
            loadAsync().subscribe(null, e -> {
                LOADING_ASYNC.set(false);  // a later reduction tries again
                LOG.warn("loading the native reduction kernels in the background failed", e);
            });
        }
    }

    /**
     * Whether this thread may not block: a Reactor {@link Schedulers#isInNonBlockingThread()
     * non-blocking thread}, or a Netty thread that does not permit blocking calls (an event loop; the
     * test that BlockHound's Netty integration makes).
     */
    static boolean onNonBlockingThread() {
        Thread t = Thread.currentThread();
        return Schedulers.isInNonBlockingThread()
                || t instanceof FastThreadLocalThread && !((FastThreadLocalThread) t).permitBlockingCalls();
    }

    /**
     * {@code <os>-<arch>} of this JVM as the build names its library folders ({@code linux-x86_64},
     * {@code linux-aarch64}), or empty for a platform the build does not make a library for.
     */
    static Optional<String> platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            return Optional.empty();
        }
        switch (arch) {
            case "amd64":
            case "x86_64":
                return Optional.of("linux-x86_64");
            case "aarch64":
            case "arm64":
                return Optional.of("linux-aarch64");
            default:
                return Optional.empty();
        }
    }

    /**
     * {@code dst[i] = op(dst[i], src[i])} for {@code count} elements at the two addresses; false
     * (and nothing done) for a pair the native kernels leave to Java, or when they are not loaded
     * (this does not load them: {@link #ensureLoaded()} does).
     */
    static boolean reduce(ReduceOp.Kind op, DType dtype, long dst, long src, long count) {
        return available && reduce0(op.ordinal(), dtype.ordinal(), dst, src, count) != 0;
    }

    private static native int reduce0(int op, int dtype, long dst, long src, long count);

    private static native int abiVersion0();

    private static native String halfConversions0();

    /** The FLOAT16 conversions in use: {@code "avx512f"}, {@code "f16c"} or {@code "portable"}. */
    static String halfConversions() {
        return halfConversions0();
    }

    /**
     * Tests only (not safe while reductions run): switches to the FLOAT16 conversions named; false,
     * and no change, when this CPU lacks them.
     */
    static boolean useHalfConversions(String name) {
        return useHalfConversions0(name);
    }

    private static native boolean useHalfConversions0(String name);

    /** Loads the library as the settings say; returns null when it is loaded, else why not. */
    private static String loadLibrary() {
        try {
            // a setting that does not parse is a reason like the others (the Java kernels then do the work)
            if (!CoreSettings.KERNELS_NATIVE.get()) {
                return "turned off with -Drc.kernels.native=false";
            }
            Path explicit = CoreSettings.KERNELS_NATIVE_LIBRARY.get();
            if (explicit != null) {
                System.load(explicit.toAbsolutePath().toString());
                return null;
            }
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            return "the library could not be loaded: " + e;
        }
        return NativeLibraryFile.load(NativeReduceKernels.class, LIBRARY_FILE, System::load);
    }

    /** The library named by {@code rc.kernels.native.library}, or null (also when the setting does not parse). */
    private static java.nio.file.Path explicitLibrary() {
        try {
            return CoreSettings.KERNELS_NATIVE_LIBRARY.get();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Loads the library and checks its ABI; returns null when it is in use, else why not. */
    private static String loadAndCheck() {
        String reason = loadLibrary();
        if (reason == null) {
            try {
                int abi = abiVersion0();
                if (abi != ABI_VERSION) {
                    reason = "the loaded library implements ABI " + abi + ", this class needs " + ABI_VERSION;
                }
            } catch (UnsatisfiedLinkError e) {
                reason = "the loaded library lacks its entry points (" + e.getMessage() + ")";
            }
        }
        if (reason == null) {
            LOG.debug("native reduction kernels loaded");
        } else if (explicitLibrary() != null) {
            // asked for by name: not using it is news (before, only a debug line said so)
            io.reactivecollectives.core.observe.Notices.warn(LOG, CoreSettings.KERNELS_NATIVE_LIBRARY.name() + "=" + explicitLibrary()
                    + ": native reduction kernels not in use, the Java kernels do the work: " + reason);
        } else {
            LOG.debug("native reduction kernels not in use: {}", reason);
        }
        return reason;
    }
}
