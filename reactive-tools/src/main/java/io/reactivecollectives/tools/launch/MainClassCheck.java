package io.reactivecollectives.tools.launch;

import io.reactivecollectives.tools.cli.Cli;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.net.URLClassLoader;
import java.util.List;

/**
 * Before any rank is launched, the launcher parses the ranks' arguments itself when the main class
 * is a picocli {@link Command}: {@code --help} and {@code --version} are answered once, here, and a
 * usage error (an unknown option, a bad value, a failed {@link Cli.Validated#validate()}) is one
 * line on stderr with exit code 2, instead of the same error from every rank.
 */
final class MainClassCheck {

    private MainClassCheck() {
    }

    /**
     * The exit code when {@code mainClass} with {@code args} is answered here (help, version: 0;
     * usage error or no such class: 2); null when the ranks should be launched. {@code classpath}
     * is the ranks' class path when it is the user's own (null: the launcher's).
     */
    static Integer check(String mainClass, List<String> args, String classpath, PrintStream out, PrintStream err) {
        ClassLoader loader = loader(classpath);
        try {
            return check(mainClass, args, loader, out, err);
        } finally {
            if (loader instanceof URLClassLoader own) {
                try {
                    own.close();
                } catch (java.io.IOException e) {
                    // the jars were only read
                }
            }
        }
    }

    private static Integer check(String mainClass, List<String> args, ClassLoader loader, PrintStream out,
                                 PrintStream err) {
        Class<?> cls;
        try {
            cls = Class.forName(mainClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            err.println("collectives-run: no main class " + mainClass + " on the class path (see --help)");
            return Cli.USAGE;
        }
        if (!cls.isAnnotationPresent(Command.class)) {
            return null;
        }
        Object command;
        try {
            Constructor<?> c = cls.getDeclaredConstructor();
            c.setAccessible(true);
            command = c.newInstance();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null; // not something to parse here: the ranks will say what is wrong
        }
        CommandLine cl = Cli.commandLine(command, out, err);
        try {
            CommandLine.ParseResult parsed = cl.parseArgs(args.toArray(new String[0]));
            Integer help = CommandLine.executeHelpRequest(parsed);
            if (help != null) {
                return help;
            }
            List<CommandLine> chain = parsed.asCommandLineList();
            Cli.validate(chain.get(chain.size() - 1));
            return null;
        } catch (CommandLine.ParameterException e) {
            Cli.printUsageError(e);
            return Cli.USAGE;
        }
    }

    private static ClassLoader loader(String classpath) {
        ClassLoader own = MainClassCheck.class.getClassLoader();
        // the user's class path comes expanded (ChildClassPath.resolve): its entries as they are
        return classpath == null ? own
                : new URLClassLoader(ChildClassPath.urls(List.of(classpath.split(java.io.File.pathSeparator))), own);
    }
}
