package io.reactivecollectives.tools.launch;

import java.util.ArrayList;
import java.util.List;

/**
 * The options every rank JVM gets from whatever starts ranks ({@code collectives-run},
 * {@code collectives-perf}): the library's native access, on JDK 24 and later Netty's
 * {@code sun.misc.Unsafe} memory access, and Netty's flight-recorder events off. An option the rank's
 * own options already name is left to them.
 */
public final class RankJvmDefaults {

    /**
     * Native access: the library loads its native kernels ({@code System.load}) and reaches memory
     * through {@code java.lang.foreign}, restricted methods of which JDK 22 and later warn (and later
     * JDKs are to refuse them) without this flag; JDK 17 to 21 accept it too.
     */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    /**
     * {@code sun.misc.Unsafe} memory access, given on JDK 24 and later (which warns about it, and from
     * 25 leaves Netty without it, so ranks of one host would fall back from shared memory to Unix
     * sockets); earlier JDKs do not know the option.
     */
    public static final String UNSAFE_ACCESS = "--sun-misc-unsafe-memory-access=allow";

    /**
     * Netty's JDK Flight Recorder events off. Netty 4.2 registers its allocator events
     * ({@code io.netty.AllocateChunk} and others) with the flight recorder on a process's first
     * buffer allocation, whether or not anything records them, and that registration (the recorder's
     * metadata, a generated class per event) costs a rank a tenth of a second of processor on the
     * event loop that carries the rendezvous. A rank that wants those events in a recording passes
     * {@code -Dio.netty.jfr.enabled=true}; the JDK's own events and the library's are not affected.
     */
    public static final String NETTY_JFR_OFF = "-Dio.netty.jfr.enabled=false";

    private RankJvmDefaults() {
    }

    /**
     * The default options for a rank on a JDK of {@code feature} version whose own options are
     * {@code jvmArgs}: those of {@link #NATIVE_ACCESS}, {@link #UNSAFE_ACCESS} and
     * {@link #NETTY_JFR_OFF} that apply and that {@code jvmArgs} do not name.
     *
     * @param jvmArgs the rank's own JVM options
     * @param feature the JDK's feature version ({@code Runtime.version().feature()})
     * @return the options to put before {@code jvmArgs}
     */
    public static List<String> options(List<String> jvmArgs, int feature) {
        List<String> options = new ArrayList<>();
        if (jvmArgs.stream().noneMatch(a -> a.startsWith("--enable-native-access"))) {
            options.add(NATIVE_ACCESS);
        }
        if (feature >= 24 && jvmArgs.stream().noneMatch(a -> a.startsWith("--sun-misc-unsafe-memory-access"))) {
            options.add(UNSAFE_ACCESS);
        }
        if (jvmArgs.stream().noneMatch(a -> a.startsWith("-Dio.netty.jfr.enabled"))) {
            options.add(NETTY_JFR_OFF);
        }
        return options;
    }
}
