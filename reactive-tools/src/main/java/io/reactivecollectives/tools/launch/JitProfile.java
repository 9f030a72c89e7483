package io.reactivecollectives.tools.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How the launcher sets up the children's just-in-time compilers ({@code collectives-run --jit}).
 *
 * <p>{@link #DEFAULT} leaves the JVM's settings alone. {@link #LEAN} inlines less when the
 * optimizing compiler (C2) compiles a method ({@code -XX:MaxInlineLevel=6 -XX:FreqInlineSize=100
 * -XX:InlineSmallCode=1000}): the data path's hot methods (the event loop, a segment's send, the
 * buffer pool) otherwise each pull a large tree of callees into one compile, and with several ranks
 * per host on few cores those compiles take the cores the collectives need for the first tens of
 * seconds of a job. It applies to the whole JVM, the user's own code included; measure before
 * choosing it for compute-heavy Java code ({@code perf/RESULTS.md} has the figures). An option the
 * user passes with {@code --jvm-arg} wins over the profile's. {@code --jit auto}, the default, is
 * {@link #LEAN} when a node runs more ranks than it has processors (the compilers would compete with
 * the ranks for them) and {@link #DEFAULT} otherwise.
 */
enum JitProfile {

    /** The JVM's own settings. */
    DEFAULT(List.of()),

    /** Less inlining by C2: smaller, quicker compiles. */
    LEAN(List.of("-XX:MaxInlineLevel=6", "-XX:FreqInlineSize=100", "-XX:InlineSmallCode=1000"));

    private final List<String> flags;

    JitProfile(List<String> flags) {
        this.flags = flags;
    }

    /**
     * The profile named {@code name} ({@code default} or {@code lean}, any case).
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
        throw new IllegalArgumentException("--jit must be auto, default or lean, got " + name);
    }

    /**
     * The profile for the {@code --jit} option's value: {@code auto} picks {@link #LEAN} when
     * {@code localRanks} exceed {@code processors}, {@link #DEFAULT} otherwise; any other value is
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
            return localRanks > processors ? LEAN : DEFAULT;
        }
        return parse(option);
    }

    /**
     * The profile's JVM options that {@code jvmArgs} do not set themselves (the user's win).
     *
     * @param jvmArgs the user's options for the children
     * @return the options to add before them
     */
    List<String> options(List<String> jvmArgs) {
        List<String> out = new ArrayList<>();
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
