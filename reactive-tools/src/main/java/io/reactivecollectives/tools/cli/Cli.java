package io.reactivecollectives.tools.cli;

import picocli.CommandLine;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.PrintWriter;

/**
 * How the command-line tools run their picocli commands: {@code --version} prints the tool's name
 * and the project version, and a usage error (an unknown option, a bad value, or a
 * {@link CommandLine.ParameterException} from {@link Validated#validate()}) is one line on stderr,
 * {@code <tool>: <what is wrong> (see --help)}, with exit code 2.
 */
public final class Cli {

    /** The exit code of a usage error. */
    public static final int USAGE = 2;

    private Cli() {
    }

    /**
     * A command whose options are checked together before anything runs (and, under
     * {@code collectives-run}, before any rank is launched).
     */
    public interface Validated {
        /** Throws a {@link CommandLine.ParameterException} naming the offending option(s) if the options do not fit. */
        void validate();
    }

    /** {@code --version} of every tool: {@code <name> <project version>}. */
    public static final class Version implements IVersionProvider {
        @Spec
        CommandSpec spec;

        /** A provider picocli gives the command's spec. */
        public Version() {
        }

        @Override
        public String[] getVersion() {
            String name = spec == null ? "reactive-collectives" : spec.name();
            return new String[] {name + " " + io.reactivecollectives.core.Version.get()};
        }
    }

    /**
     * {@code command}'s command line, printing to {@code out} and {@code err}, with one-line usage
     * errors (exit code {@link #USAGE}) and {@link Validated} commands checked before they run.
     *
     * @param command a picocli command object
     * @param out     where help, version and results go
     * @param err     where errors go
     * @return the command line, ready to {@code execute}
     */
    public static CommandLine commandLine(Object command, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            printUsageError(unknownOptionFirst(ex));
            return USAGE;
        });
        cl.setExecutionStrategy(parsed -> {
            Integer help = CommandLine.executeHelpRequest(parsed);
            if (help != null) {
                return help;
            }
            java.util.List<CommandLine> chain = parsed.asCommandLineList();
            validate(chain.get(chain.size() - 1));
            return new CommandLine.RunLast().execute(parsed);
        });
        return cl;
    }

    /**
     * Calls {@link Validated#validate()} when {@code cl}'s command is {@link Validated}.
     *
     * @param cl a parsed command line
     * @throws CommandLine.ParameterException when the command's options do not go together
     */
    public static void validate(CommandLine cl) {
        if (cl.getCommand() instanceof Validated v) {
            v.validate();
        }
    }

    /**
     * Runs {@code command} with {@code args} on the standard streams.
     *
     * @param command a picocli command object
     * @param args    its arguments
     * @return the exit code ({@link #USAGE} for bad usage)
     */
    public static int execute(Object command, String... args) {
        return commandLine(command, System.out, System.err).execute(args);
    }

    /**
     * The usage error to report for {@code ex}: an unknown option the user typed rather than the
     * required parameter or option picocli found missing first ({@code tool --bogus} names
     * {@code --bogus}, not the missing argument it was never meant to give).
     *
     * @param ex a usage error
     * @return an {@link CommandLine.UnmatchedArgumentException} naming the unknown options, or {@code ex}
     */
    public static CommandLine.ParameterException unknownOptionFirst(CommandLine.ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        if (ex instanceof CommandLine.MissingParameterException && cl != null) {
            java.util.List<String> unknown = cl.getUnmatchedArguments().stream().filter(a -> a.startsWith("-")).toList();
            if (!unknown.isEmpty()) {
                return new CommandLine.UnmatchedArgumentException(cl, unknown);
            }
        }
        return ex;
    }

    /**
     * Prints {@code ex} as the one line {@code <tool>: <message> (see --help)} on its command line's stderr.
     *
     * @param ex a usage error
     */
    public static void printUsageError(CommandLine.ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        String message = String.valueOf(ex.getMessage()).replaceAll("\\s*[\\r\\n]+\\s*", "; ").trim();
        cl.getErr().println(cl.getCommandName() + ": " + message + " (see --help)");
        cl.getErr().flush();
    }
}
