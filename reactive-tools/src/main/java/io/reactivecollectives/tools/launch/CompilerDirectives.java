package io.reactivecollectives.tools.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The compiler directives the launcher gives its children ({@code -XX:CompilerDirectivesFile}, a
 * diagnostic option of HotSpot since JDK 9; JEP 165), written from this jar's
 * {@code compiler-directives.json} (the start-up part) and reactive-transport's data-path
 * directives (the part that library adds by itself to JVMs started without a file, see
 * {@link #json()}) to a file of this launch, deleted when the launch ends.
 *
 * <p>They tell the optimizing compiler (C2) two things, and concern only the JDK's start-up code and
 * this library's and Netty's data path, never the user's own methods:
 * <ul>
 *   <li>Leave start-up code to the quick compiler (C1): the JDK's bytecode spinner (ASM, busy while
 *   lambda forms are generated at start-up), class loading, the module system, jar reading, the
 *   command-line parser and this library's rendezvous. C2 compiled them in the first seconds of every
 *   rank, for code that runs once.</li>
 *   <li>Compile the data path's layers separately: a segment's completion, its send, the frame's
 *   write, the ring write, the frame dispatch, the mailbox delivery, the reduction step, the
 *   buffer pool's allocate and free, and the event loop's run, ready-key dispatch, read and write
 *   (NIO's and native epoll's alike) are each compiled once, as their own method, instead of being
 *   inlined into every caller. Otherwise each entry point pulled the whole tree below it into one
 *   compile (the segment's completion recursively, through the lanes), and the same trees were
 *   compiled again under each entry point. These calls happen once per segment (tens to hundreds of
 *   kilobytes), where a call costs nothing.</li>
 * </ul>
 * With few processors per rank the compiler threads otherwise take the processors the data path
 * needs until C2 has finished; {@code perf/RESULTS.md} ("2026-11-28: compiler directives") has the
 * figures before and after.
 *
 * <p>HotSpot announces the directives on the child's standard output at start-up ("2 compiler
 * directives added"); the launcher drops that line ({@link #isNotice}). A user's own
 * {@code -XX:CompilerDirectivesFile} replaces the launcher's; a launch that cannot write the file
 * runs without them.
 */
final class CompilerDirectives {

    /** The resource, next to this class. */
    static final String RESOURCE = "compiler-directives.json";

    /** The data path's directives in reactive-transport's jar (its {@code runtime.DataPathDirectives}). */
    static final String DATA_PATH_RESOURCE = "META-INF/io.reactivecollectives/data-path-directives.json";

    private static final String OPTION = "-XX:CompilerDirectivesFile=";
    private static final Pattern NOTICE = Pattern.compile("\\d+ compiler directives? added\\R?");

    private final Path file;

    private CompilerDirectives(Path file) {
        this.file = file;
    }

    /**
     * The directives of a launch with {@code profile} and the user's {@code jvmArgs}: written to a new
     * temporary file where the profile is {@link JitProfile#directed() directed} and the user brings no
     * directives file of their own, else null.
     *
     * @param profile the launch's {@code --jit} profile
     * @param jvmArgs the user's options for the children
     * @return the directives, or null
     * @throws UncheckedIOException when the file cannot be written
     */
    static CompilerDirectives forLaunch(JitProfile profile, List<String> jvmArgs) {
        return profile.directed() && jvmArgs.stream().noneMatch(a -> a.startsWith(OPTION)) ? write() : null;
    }

    private static CompilerDirectives write() {
        try {
            String json = json();
            Path file = Files.createTempFile("rc-compiler-directives-", ".json");
            file.toFile().deleteOnExit();   // a launcher stopped by a signal runs no finally, only shutdown hooks
            Files.writeString(file, json);
            return new CompilerDirectives(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the compiler directives: " + e.getMessage(), e);
        }
    }

    /**
     * The directives' text: this jar's start-up directives ({@value #RESOURCE}) and the data path's,
     * which reactive-transport adds at run time to the JVMs the launcher does not start
     * ({@value #DATA_PATH_RESOURCE}), in one list.
     *
     * @return the directives file's content
     * @throws IOException when a resource is missing
     */
    static String json() throws IOException {
        return "[\n" + objects(CompilerDirectives.class.getResourceAsStream(RESOURCE), RESOURCE) + ",\n"
                + objects(CompilerDirectives.class.getClassLoader().getResourceAsStream(DATA_PATH_RESOURCE),
                DATA_PATH_RESOURCE) + "\n]\n";
    }

    /** The objects of a directives file's list, without the list's brackets. */
    private static String objects(InputStream resource, String name) throws IOException {
        if (resource == null) {
            throw new IOException(name + " is missing from the class path");
        }
        try (InputStream in = resource) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!text.startsWith("[") || !text.endsWith("]")) {
                throw new IOException(name + " is not a list of directives");
            }
            return text.substring(1, text.length() - 1).strip();
        }
    }

    /** The options that give a child the directives. */
    List<String> options() {
        return List.of("-XX:+UnlockDiagnosticVMOptions", OPTION + file);
    }

    /**
     * Whether {@code line} is HotSpot's announcement of the directives (printed before the main class
     * runs).
     *
     * @param line a line of a child's standard output, its end included or not
     * @return whether it is the announcement
     */
    static boolean isNotice(String line) {
        return NOTICE.matcher(line).matches();
    }

    /** Deletes the file (after the children have exited; they read it once, at start-up). */
    void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a temporary file: the system's clean-up takes it
        }
    }
}
