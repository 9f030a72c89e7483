package io.reactivecollectives.perf;

import picocli.CommandLine;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;

/**
 * How the perf module's tools run their picocli commands, as the samples' tools do: {@code --version}
 * prints the tool's name and the project version; a usage error (an unknown option, a bad value, a
 * {@link CommandLine.ParameterException} from {@link Validated#validate()}, which runs before the
 * command does anything) is one line on stderr, {@code <tool>: <what is wrong> (see --help)}, with
 * exit code 2.
 */
final class ToolCli {

    /** The exit code of a usage error. */
    static final int USAGE = 2;

    private ToolCli() {
    }

    /** A command whose options are checked together before it runs (before any rank is launched). */
    interface Validated {
        /** Throws a {@link CommandLine.ParameterException} naming the offending option(s) if the options do not fit. */
        void validate();
    }

    /** {@code --version}: {@code <name> <project version>}. */
    static final class Version implements IVersionProvider {
        @Spec
        CommandSpec spec;

        @Override
        public String[] getVersion() {
            return new String[] {(spec == null ? "reactive-collectives" : spec.name()) + " "
                    + io.reactivecollectives.core.Version.get()};
        }
    }

    static CommandLine commandLine(Object command, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine at = ex.getCommandLine();
            String message = String.valueOf(ex.getMessage()).replaceAll("\\s*[\\r\\n]+\\s*", "; ").trim();
            at.getErr().println(at.getCommandName() + ": " + message + " (see --help)");
            at.getErr().flush();
            return USAGE;
        });
        cl.setExecutionStrategy(parsed -> {
            Integer help = CommandLine.executeHelpRequest(parsed);
            if (help != null) {
                return help;
            }
            List<CommandLine> chain = parsed.asCommandLineList();
            if (chain.get(chain.size() - 1).getCommand() instanceof Validated v) {
                v.validate();
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        return cl;
    }

    static int execute(Object command, String... args) {
        return commandLine(command, System.out, System.err).execute(args);
    }
}
