/**
 * The command lines: the launcher ({@code tools.launch.Launcher}, what {@code bin/collectives-run}
 * runs), the stand-alone store server ({@code tools.store.TcpStoreServerCommand}), the dump analyzer
 * ({@code tools.analyze.FlightRecorderAnalyze}) and {@code tools.cli.Cli}, which gives every command
 * line {@code --version} and one-line usage errors. picocli reads the commands' options
 * reflectively, so their packages are open to it.
 */
module io.reactivecollectives.tools {
    requires transitive io.reactivecollectives.transport;
    requires transitive info.picocli;

    exports io.reactivecollectives.tools.analyze;
    exports io.reactivecollectives.tools.cli;
    exports io.reactivecollectives.tools.launch;
    exports io.reactivecollectives.tools.store;

    opens io.reactivecollectives.tools.analyze to info.picocli;
    opens io.reactivecollectives.tools.cli to info.picocli;
    opens io.reactivecollectives.tools.launch to info.picocli;
    opens io.reactivecollectives.tools.store to info.picocli;

    provides io.reactivecollectives.core.settings.SettingsProvider with io.reactivecollectives.tools.ToolsSettings;
}
