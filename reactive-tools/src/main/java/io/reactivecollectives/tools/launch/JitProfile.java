package io.reactivecollectives.tools.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the launcher sets up the children's just-in-time compilers ({@code collectives-run --jit}).
 *
 * <p>{@link #DEFAULT} leaves the JVM's settings alone (and tells the library not to add the data
 * path's directives at run time, as it does in JVMs started without them:
 * {@value #NO_RUNTIME_DIRECTIVES}). {@link #FOCUSED} gives the children the
 * {@link CompilerDirectives}: the optimizing compiler (C2) leaves the JDK's start-up code to the
 * quick compiler and compiles the layers of this library's data path one by one instead of inlining
 * each layer's tree into every caller; it concerns only those methods, not the user's own.
 * {@link #LEAN} adds less inlining in every C2 compile ({@code -XX:MaxInlineLevel=6
 * -XX:FreqInlineSize=100 -XX:InlineSmallCode=1000}), the user's code included: with more ranks per
 * host than processors the compiles of all of them otherwise take the processors the collectives need
 * for the first tens of seconds; measure compute-heavy Java code before choosing it. {@link #QUICK}
 * leaves every method to the quick compiler (C1, {@code -XX:TieredStopAtLevel=1}): no optimizing
 * compiles at all, so the ranks reach their full bandwidth within seconds even with more ranks than
 * processors, but the user's own Java code runs as C1 compiles it for the whole job (a Java model's
 * steps are slower); it suits jobs whose JVM code only moves and reduces arrays. An option the
 * user passes with {@code --jvm-arg} wins over the profile's. {@code --jit auto}, the default, is {@link #LEAN} when a
 * node runs more ranks than it has processors and {@link #FOCUSED} otherwise ({@code perf/RESULTS.md}
 * has the measurements behind that choice).
 */
enum JitProfile {

    /** The JVM's own settings. */
    DEFAULT(List.of(JitProfile.NO_RUNTIME_DIRECTIVES), false),

    /** The {@link CompilerDirectives}: C2 off start-up code, the data path's layers compiled one by one. */
    FOCUSED(List.of(), true),

    /** Less inlining by C2 everywhere (smaller, quicker compiles), and the {@link CompilerDirectives}. */
    LEAN(List.of("-XX:MaxInlineLevel=6", "-XX:FreqInlineSize=100", "-XX:InlineSmallCode=1000"), true),

    /** The quick compiler (C1) alone, for the whole JVM; no directives (they would steer C1's inlining too). */
    QUICK(List.of(JitProfile.NO_RUNTIME_DIRECTIVES, "-XX:TieredStopAtLevel=1"), false);

    /**
     * Tells reactive-transport not to add the data path's directives at run time (its
     * {@code rc.jit.directives}); a flag of the profiles without directives, which the user's own
     * {@code -Drc.jit.directives=} replaces as any flag of theirs does.
     */
    static final String NO_RUNTIME_DIRECTIVES = "-Drc.jit.directives=false";

    private final List<String> flags;
    private final boolean directed;

    JitProfile(List<String> flags, boolean directed) {
        this.flags = flags;
        this.directed = directed;
    }

    /** Whether the profile gives the children the {@link CompilerDirectives}. */
    boolean directed() {
        return directed;
    }

    /**
     * The profile named {@code name} ({@code default}, {@code focused}, {@code lean} or {@code quick}, any case).
     *
     * @param name the option's value
     * @return the profile
     * @throws IllegalArgumentException for any other name
     */
    static JitProfile parse(String name) {
        for (JitProfile p : values()) {
            if (p.name().equalsIgnoreCase(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("--jit must be auto, default, focused, lean or quick, got " + name);
    }

    /**
     * The profile for the {@code --jit} option's value: {@code auto} picks {@link #LEAN} when
     * {@code localRanks} exceed {@code processors}, {@link #FOCUSED} otherwise; any other value is
     * {@link #parse parsed}.
     *
     * @param option     the option's value
     * @param localRanks the ranks this node starts
     * @param processors the processors this node's JVMs may use
     * @return the profile
     * @throws IllegalArgumentException for a value that names no profile
     */
    static JitProfile of(String option, int localRanks, int processors) {
        if ("auto".equalsIgnoreCase(option)) {
            return localRanks > processors ? LEAN : FOCUSED;
        }
        return parse(option);
    }

    /**
     * The profile's JVM options that {@code jvmArgs} do not set themselves (the user's win).
     *
     * @param jvmArgs    the user's options for the children
     * @param directives the launch's {@link CompilerDirectives#forLaunch directives}, or null for none
     * @return the options to add before them
     */
    List<String> options(List<String> jvmArgs, CompilerDirectives directives) {
        List<String> out = new ArrayList<>(directives != null ? directives.options() : List.of());
        for (String flag : flags) {
            String name = flag.substring(0, flag.indexOf('=') + 1);
            if (jvmArgs.stream().noneMatch(a -> a.startsWith(name))) {
                out.add(flag);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
