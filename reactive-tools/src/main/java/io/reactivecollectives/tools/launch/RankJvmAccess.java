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
