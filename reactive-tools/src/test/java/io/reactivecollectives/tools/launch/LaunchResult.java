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

    /** Launches one rank of {@code main} without a class-data archive, with the launcher's {@code options} besides. */
    static LaunchResult oneRank(Class<?> main, String... options) {
        String[] argv = new String[options.length + 6];
        argv[0] = "--nproc-per-node";
        argv[1] = "1";
        argv[2] = "--class-data";
        argv[3] = "off";
        System.arraycopy(options, 0, argv, 4, options.length);
        argv[argv.length - 2] = "--";
        argv[argv.length - 1] = main.getName();
        return launch(argv);
    }
}
