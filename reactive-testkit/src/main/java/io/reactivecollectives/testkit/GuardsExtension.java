package io.reactivecollectives.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;

import java.util.List;

/**
 * Fails a test class whose tests leaked a Netty buffer (or a tensor) or made a blocking call on a
 * non-blocking thread (a Netty event loop, Reactor's parallel scheduler). Before the class: installs
 * the leak guard ({@link Guards#install()}) and BlockHound. After it: collects garbage, lets the
 * PARANOID leak detector report, and throws an {@link AssertionError} listing what was found.
 *
 * <pre>{@code
 * @ExtendWith(GuardsExtension.class)
 * class MyCollectivesTest { ... }
 * }</pre>
 *
 * The test JVM needs {@link #ARG_LINE} (Surefire's {@code argLine}); the rest the test kit sets at
 * run time: Netty's leak detection level, the recording leak detector ({@link GuardsSessionListener},
 * registered by this artifact, installs both when the test launcher starts) and BlockHound.
 */
public final class GuardsExtension implements BeforeAllCallback, AfterAllCallback {

    /**
     * The options of a test JVM that uses the guards, for Surefire's {@code argLine}; the same on
     * JDK 17 to 25, where a test run with them prints no JVM warning. Only command-line options can
     * do what they do:
     * <ul>
     *   <li>{@code -XX:+AllowRedefinitionToAddDeleteMethods}: BlockHound wraps native JDK methods
     *       (such as {@code Thread.sleep}) of classes loaded before it, which adds methods to them;
     *       without it BlockHound refuses to install on JDK 13 and later. The flag is deprecated, and
     *       the JVM says so: {@code -XX:-PrintWarnings} before it and {@code -XX:+PrintWarnings}
     *       after it silence that notice alone.</li>
     *   <li>{@code -Xshare:off}: BlockHound appends to the boot class path, after which the JVM
     *       warns that class data sharing is limited to boot classes; without sharing there is
     *       nothing to warn about.</li>
     *   <li>{@code -XX:+EnableDynamicAgentLoading}: BlockHound loads its agent into the running JVM,
     *       which JDK 21 and later warn about unless this is given; {@code
     *       -Djdk.attach.allowAttachSelf=true} lets it attach from the JVM itself rather than from a
     *       helper process.</li>
     *   <li>{@code --enable-native-access=ALL-UNNAMED}: the library loads its native kernels and
     *       copies memory through {@code java.lang.foreign}, restricted methods that JDK 24 and
     *       later warn about otherwise.</li>
     * </ul>
     */
    public static final String ARG_LINE = "-XX:-PrintWarnings -XX:+AllowRedefinitionToAddDeleteMethods"
            + " -XX:+PrintWarnings -Xshare:off -XX:+EnableDynamicAgentLoading -Djdk.attach.allowAttachSelf=true"
            + " --enable-native-access=ALL-UNNAMED";

    /** Creates the extension (JUnit does, from {@code @ExtendWith}). */
    public GuardsExtension() {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Guards.install();
        try {
            BlockHound.install();   // a no-op when already installed
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException("GuardsExtension: BlockHound could not be installed in "
                    + context.getDisplayName() + ": run the test JVM with the test kit's options (Surefire: <argLine>"
                    + ARG_LINE + "</argLine>)", e);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Guards.collectLeaks();
        List<String> leaks = Guards.drainLeaks();
        List<String> blocking = Guards.drainBlockingCalls();
        if (!leaks.isEmpty() || !blocking.isEmpty()) {
            throw new AssertionError(context.getDisplayName() + ": " + leaks.size() + " leaked buffer(s), "
                    + blocking.size() + " blocking call(s) on non-blocking threads\n"
                    + String.join("\n", blocking) + "\n" + String.join("\n", leaks));
        }
    }
}
