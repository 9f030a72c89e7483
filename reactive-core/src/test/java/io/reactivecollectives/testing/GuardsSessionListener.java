package io.reactivecollectives.testing;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/** Installs the leak guard when the test JVM's launcher session opens, before any test class loads. */
public final class GuardsSessionListener implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        Guards.install();
    }
}
