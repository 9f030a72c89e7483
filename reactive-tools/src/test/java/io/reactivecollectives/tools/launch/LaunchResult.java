package io.reactivecollectives.tools.launch;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What an in-process {@link Launcher#run} printed and returned, for the launcher's tests. */
record LaunchResult(int code, String out, String err) {

    /** Runs the launcher with {@code argv}, its output and errors captured. */
    static LaunchResult launch(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Launcher.run(argv, new PrintStream(out, true), new PrintStream(err, true));
        return new LaunchResult(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
