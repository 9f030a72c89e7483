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
 * BlockHound needs the test JVM to run with {@code -XX:+AllowRedefinitionToAddDeleteMethods} (JDK
 * 13 and later) and, on JDK 21 and later, {@code -XX:+EnableDynamicAgentLoading}.
 */
public final class GuardsExtension implements BeforeAllCallback, AfterAllCallback {

    /** Creates the extension (JUnit does, from {@code @ExtendWith}). */
    public GuardsExtension() {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Guards.install();
        try {
            BlockHound.install();   // a no-op when already installed
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException("BlockHound could not be installed: run the test JVM with"
                    + " -XX:+AllowRedefinitionToAddDeleteMethods -XX:+EnableDynamicAgentLoading", e);
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
