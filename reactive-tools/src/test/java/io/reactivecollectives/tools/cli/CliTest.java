package io.reactivecollectives.tools.cli;

import io.reactivecollectives.tools.launch.Launcher;
import io.reactivecollectives.tools.store.TcpStoreServerCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The tools' usage errors name what the user typed wrong. */
class CliTest {

    @Command(name = "tool")
    static final class Tool implements Callable<Integer> {
        @Option(names = "-o", required = true)
        String output;

        @Parameters(arity = "1..*")
        java.util.List<String> paths;

        @Override
        public Integer call() {
            return 0;
        }
    }

    private static String[] run(Object command, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Cli.commandLine(command, new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true))
                .execute(args);
        return new String[] {String.valueOf(code), err.toString(StandardCharsets.UTF_8)};
    }

    /**
     * An unknown option is named even when a required option or parameter is missing too: before,
     * {@code collectives-plot --bogus} said "Missing required options and parameters: '--output=FILE',
     * 'PATH'" and {@code collectives-run --bogus} "Missing required parameter: 'MAIN_CLASS|JAR'",
     * never naming {@code --bogus}.
     */
    @Test
    void anUnknownOptionIsNamedBeforeAMissingRequiredArgument() {
        String[] r = run(new Tool(), "--bogus");
        assertEquals("2", r[0]);
        assertEquals("tool: Unknown option: '--bogus' (see --help)\n", r[1].replace("\r", ""));
        r = run(new Tool(), "-o", "x", "--bogus");
        assertEquals("tool: Unknown option: '--bogus' (see --help)\n", r[1].replace("\r", ""));
        r = run(new Tool(), "-o", "x");
        assertEquals("tool: Missing required parameter: '<paths>' (see --help)\n", r[1].replace("\r", ""),
                "a missing argument alone is still named");

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Launcher.run(new String[] {"--bogus"}, new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(err, true));
        assertEquals(2, code);
        String line = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, line.lines().count(), line);
        assertEquals(true, line.startsWith("collectives-run: unknown option '--bogus'"), line);
        assertEquals(2, Integer.parseInt(run(new TcpStoreServerCommand(), "--bogus")[0]));
    }
}
