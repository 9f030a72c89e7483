package io.reactivecollectives.tools.launch;

import java.util.ArrayList;
import java.util.List;

/**
 * The access options every rank JVM needs, for whatever starts ranks ({@code collectives-run},
 * {@code collectives-perf}): the library's native access, and on JDK 24 and later Netty's
 * {@code sun.misc.Unsafe} memory access. An option the rank's own options already name is left to them.
 */
public final class RankJvmAccess {

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

    private RankJvmAccess() {
    }

    /**
     * The access options for a rank on a JDK of {@code feature} version whose own options are
     * {@code jvmArgs}: those of {@link #NATIVE_ACCESS} and {@link #UNSAFE_ACCESS} that apply and that
     * {@code jvmArgs} do not name.
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
        return options;
    }

    /** The least memory a rank JVM takes once started (heap, metaspace, code cache, threads): what bounds the ranks of a host. */
    public static final long MIN_RANK_BYTES = 32L << 20;

    /**
     * Why {@code ranks} rank JVMs cannot start on a host of {@code hostBytes} of memory (more than it
     * holds at {@link #MIN_RANK_BYTES} each: the launch would exhaust the host, not fail), or null.
     *
     * @param flag      the option or variable that asked for them, for the message
     * @param ranks     the rank JVMs to start on this host
     * @param hostBytes the host's memory ({@link #hostMemoryBytes()})
     * @return the problem, one line, or null
     */
    public static String tooManyRanks(String flag, long ranks, long hostBytes) {
        long most = Math.max(1, hostBytes / MIN_RANK_BYTES);
        return ranks <= most ? null : flag + " " + ranks + " is more rank JVMs than this host's memory holds ("
                + (hostBytes >> 20) + " MiB, at least " + (MIN_RANK_BYTES >> 20) + " MiB a rank: at most " + most + ")";
    }

    /** {@return this host's memory in bytes (Linux's MemTotal), or Long.MAX_VALUE where it cannot be read: no bound} */
    public static long hostMemoryBytes() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: no bound
        }
        return Long.MAX_VALUE;
    }

    /**
     * What the children of a JDK of {@code feature} version get before the class path: the
     * {@link RankJvmAccess} options that {@code jvmArgs} leave unnamed, the options of the
     * {@code --jit} profile that {@code jvmArgs} leave unset ({@code directives} for a directed
     * profile), then {@code jvmArgs}.
     */
    static java.util.List<String> childJvmOptions(java.util.List<String> jvmArgs, JitProfile jit, CompilerDirectives directives,
                                        int feature) {
        java.util.List<String> options = new java.util.ArrayList<>(RankJvmAccess.options(jvmArgs, feature));
        options.addAll(jit.options(jvmArgs, directives));
        options.addAll(jvmArgs);
        return options;
    }
}
