package io.reactivecollectives.tools.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * Copies one stream of a rank (its standard output or error) to the launcher's {@link LineSink},
 * every line prefixed with {@code [rank N] }, on a plain daemon thread (never an event loop).
 */
final class OutputPump {

    private OutputPump() {
    }

    /**
     * Starts copying {@code in} to {@code sink}, prefixing every line (ended by \n or \r) with
     * {@code prefix}; with {@code dropNotice}, a first line that is HotSpot's
     * {@link CompilerDirectives#isNotice notice} of the launcher's directives is dropped, and with
     * {@code drop} (or null), every line it matches (such as {@link ClassDataArchive#isRecordingNotice}).
     *
     * @return the started thread, which ends when {@code in} does
     */
    static Thread start(InputStream in, LineSink sink, String prefix, String name, boolean dropNotice,
                        Predicate<String> drop) {
        Thread t = new Thread(() -> copy(in, sink, prefix.getBytes(StandardCharsets.UTF_8), dropNotice, drop),
                "collectives-run-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void copy(InputStream in, LineSink sink, byte[] prefix, boolean dropNotice, Predicate<String> drop) {
        byte[] buf = new byte[8192];
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        boolean first = dropNotice;
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    line.write(b);
                    if (b == '\n' || b == '\r') {
                        if (first && CompilerDirectives.isNotice(line.toString(StandardCharsets.UTF_8))
                                || drop != null && drop.test(line.toString(StandardCharsets.UTF_8))) {
                            line.reset();
                        } else {
                            emit(sink, prefix, line);
                        }
                        first = false;
                    }
                }
            }
        } catch (IOException e) {
            // the child is gone
        }
        if (line.size() > 0) {
            line.write('\n');
            emit(sink, prefix, line);
        }
    }

    private static void emit(LineSink sink, byte[] prefix, ByteArrayOutputStream line) {
        sink.write(prefix, line.toByteArray(), line.size());
        line.reset();
    }
}
