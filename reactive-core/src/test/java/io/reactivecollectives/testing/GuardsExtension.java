package io.reactivecollectives.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;

/**
 * Registered for every test class (JUnit's extension auto-detection, see junit-platform.properties):
 * after the class's tests, collects garbage, lets Netty's PARANOID leak detector report, and fails
 * the class if any buffer leaked or any blocking call was caught on a non-blocking thread.
 */
public final class GuardsExtension implements BeforeAllCallback, AfterAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        Guards.install();
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
