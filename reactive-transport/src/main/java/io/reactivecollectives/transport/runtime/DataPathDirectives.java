package io.reactivecollectives.transport.runtime;

import io.reactivecollectives.core.BlockingScheduler;
import io.reactivecollectives.transport.settings.TransportSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.ObjectName;

/**
 * The data path's compiler directives, added to the JVM's JIT once, when its first group starts.
 *
 * <p>HotSpot's optimizing compiler (C2) otherwise inlines the whole tree below each of the data
 * path's entry points (a segment's completion, the event loop's read and write, the mailbox delivery,
 * the reduction step) into every caller, compiles the same trees again under each entry point, and
 * with few processors per rank takes the processors the collectives need for tens of seconds. The
 * directives (the resource {@value #RESOURCE}, JEP 165's format) name those methods so that each is
 * compiled once, as its own method; they concern only this library's and Netty's data path, never
 * the user's own methods. {@code collectives-run} gives its ranks the same directives on the command
 * line ({@code -XX:CompilerDirectivesFile}); this class gives them to every other JVM a rank runs in
 * (torchrun, a Spark executor, a plain {@code java}), as {@code jcmd <pid> Compiler.directives_add}
 * would, through HotSpot's {@code DiagnosticCommand} MBean, which needs no diagnostic option.
 *
 * <p>It adds nothing where the setting {@code rc.jit.directives} is {@code false}, where the JVM was
 * started with a directives file of its own or the launcher's ({@code -XX:CompilerDirectivesFile}),
 * and where the JVM has no such command (not HotSpot). The work (creating the platform MBean server
 * takes a few hundred milliseconds) runs once per JVM on the {@link BlockingScheduler}, off the group's
 * start; directives apply to the compiles after them, and the data path is not compiled before it has
 * carried traffic. What happened is {@link #outcome()}, logged at DEBUG.
 */
public final class DataPathDirectives {

    /** The directives, a resource outside any package (readable from every module). */
    public static final String RESOURCE = "/META-INF/io.reactivecollectives/data-path-directives.json";

    private static final Logger LOG = LoggerFactory.getLogger(DataPathDirectives.class);
    private static final String FILE_OPTION = "-XX:CompilerDirectivesFile=";
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final CompletableFuture<String> OUTCOME = new CompletableFuture<>();

    private DataPathDirectives() {
    }

    /**
     * Adds the directives on the {@link BlockingScheduler} unless this JVM has done so (or decided not
     * to) already; returns at once.
     */
    public static void addOnce() {
        if (STARTED.compareAndSet(false, true)) {
            try {
                BlockingScheduler.get().schedule(() -> OUTCOME.complete(add()));
            } catch (RuntimeException e) {   // the scheduler's queue full: nothing added, and said so
                OUTCOME.complete("not added: " + e);
            }
        }
    }

    /**
     * What {@link #addOnce()} did, once it has: HotSpot's answer ("1 compiler directives added"),
     * or why it added nothing.
     *
     * @return the outcome, completed when the attempt has ended
     */
    public static CompletableFuture<String> outcome() {
        return OUTCOME;
    }

    /** The directives' text (the resource's content). */
    private static String json() throws IOException {
        try (InputStream in = DataPathDirectives.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException(RESOURCE + " is missing from reactive-transport's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String add() {
        String outcome;
        try {
            outcome = tryAdd();
        } catch (Exception | LinkageError e) {
            outcome = "not added: " + e;
        }
        LOG.debug("the data path's compiler directives: {}", outcome);
        return outcome;
    }

    private static String tryAdd() throws Exception {
        if (!TransportSettings.JIT_DIRECTIVES.get()) {
            return "not added: rc.jit.directives is false";
        }
        List<String> jvmOptions = ManagementFactory.getRuntimeMXBean().getInputArguments();
        if (jvmOptions.stream().anyMatch(o -> o.startsWith(FILE_OPTION))) {
            return "not added: the JVM was started with a directives file";
        }
        var server = ManagementFactory.getPlatformMBeanServer();
        ObjectName command = new ObjectName("com.sun.management:type=DiagnosticCommand");
        if (!server.isRegistered(command)) {
            return "not added: this JVM has no DiagnosticCommand MBean";
        }
        Path file = Files.createTempFile("rc-data-path-directives-", ".json");
        try {
            Files.writeString(file, json());
            // HotSpot parses the file during the call; it is not read again
            Object answer = server.invoke(command, "compilerDirectivesAdd", new Object[] {new String[] {file.toString()}},
                    new String[] {String[].class.getName()});
            return String.valueOf(answer).strip();
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
