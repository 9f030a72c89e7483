package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * At first use it is loaded from there (from a jar, through a temporary file that is deleted once
 * loaded). When it cannot be (no compiler at build time, another OS, {@code -Drc.kernels.native=false},
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

    private static final String UNAVAILABLE_REASON = load();

    private NativeReduceKernels() {
    }

    /** True when the native kernels are loaded and in use. */
    public static boolean isAvailable() {
        return UNAVAILABLE_REASON == null;
    }

    /**
     * The native kernels in words, for logs and benchmark headers: {@code "native (FLOAT16
     * conversions: avx512f)"} (or {@code f16c}, {@code portable}); when they are not in use,
     * {@code "java"} and why.
     */
    public static String describe() {
        return UNAVAILABLE_REASON == null
                ? "native (FLOAT16 conversions: " + halfConversions0() + ")"
                : "java (native kernels not in use: " + UNAVAILABLE_REASON + ")";
    }

    /** Why the native kernels are not in use; empty when they are. */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(UNAVAILABLE_REASON);
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
     * (and nothing done) for a pair the native kernels leave to Java, or when they are not loaded.
     */
    static boolean reduce(ReduceOp.Kind op, DType dtype, long dst, long src, long count) {
        return UNAVAILABLE_REASON == null && reduce0(op.ordinal(), dtype.ordinal(), dst, src, count) != 0;
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

    /** Loads the library; returns null when it is in use, else why not. */
    private static String load() {
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
        } else {
            LOG.debug("native reduction kernels not in use: {}", reason);
        }
        return reason;
    }

    private static String loadLibrary() {
        if ("false".equalsIgnoreCase(System.getProperty("rc.kernels.native"))) {
            return "turned off with -Drc.kernels.native=false";
        }
        String explicit = System.getProperty("rc.kernels.native.library");
        try {
            if (explicit != null) {
                System.load(Paths.get(explicit).toAbsolutePath().toString());
                return null;
            }
            Optional<String> platform = platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
            if (platform.isEmpty()) {
                return "no native kernels are built for " + System.getProperty("os.name") + " on "
                        + System.getProperty("os.arch");
            }
            String resource = "native/" + platform.get() + "/" + LIBRARY_FILE;
            URL url = NativeReduceKernels.class.getResource(resource);
            if (url == null) {
                return "this build has no " + platform.get() + " library (it was built without a C compiler, "
                        + "or with -Drc.native.skip=true)";
            }
            if ("file".equals(url.getProtocol())) {
                System.load(Paths.get(url.toURI()).toString());
                return null;
            }
            Path tmp = Files.createTempFile("rc_reduce_kernels", ".so");
            try (InputStream in = url.openStream()) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                System.load(tmp.toString());
            } finally {
                Files.deleteIfExists(tmp);  // the loaded library stays mapped
            }
            return null;
        } catch (IOException | URISyntaxException | RuntimeException | UnsatisfiedLinkError e) {
            return "the library could not be loaded: " + e;
        }
    }
}
