package io.reactivecollectives.testkit;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs the leak guard when the test JVM's launcher session opens, before any test class loads,
 * so that no buffer is allocated before it. Register it in
 * {@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener} of your test
 * resources when a test class without {@link GuardsExtension} may use Netty buffers before one with it.
 */
public final class GuardsSessionListener implements LauncherSessionListener {

    /** Creates the listener (the JUnit launcher does). */
    public GuardsSessionListener() {
    }

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        Guards.install();
    }
}
