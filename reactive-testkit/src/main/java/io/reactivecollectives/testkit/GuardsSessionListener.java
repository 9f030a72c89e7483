package io.reactivecollectives.testkit;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs the leak guard ({@link Guards#install()}: Netty's leak detection at PARANOID, leaks
 * recorded) when the test JVM's launcher session opens, before any test class loads, so that no
 * buffer is allocated before it, even by a test class without {@link GuardsExtension} that runs
 * before one with it. The test kit's jar registers it
 * ({@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener}): a test JVM with
 * the test kit on its class path runs it without any configuration.
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
