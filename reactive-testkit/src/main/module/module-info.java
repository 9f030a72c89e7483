/**
 * Test guards for users' tests: {@code GuardsExtension} (BlockHound, PARANOID leak detection) and
 * {@code LocalClusterExtension}.
 *
 * <p>{@code GuardsSessionListener} is registered for the JUnit launcher through
 * {@code META-INF/services}, which applies on the class path (where Surefire runs tests by default);
 * this descriptor does not provide it, because JUnit's launcher is an optional dependency and a
 * module that provides a service must read the service's module.
 */
module io.reactivecollectives.testkit {
    requires transitive io.reactivecollectives.transport;
    requires transitive org.junit.jupiter.api;
    requires reactor.blockhound;
    requires static org.junit.platform.launcher;

    exports io.reactivecollectives.testkit;

    provides reactor.blockhound.integration.BlockHoundIntegration
            with io.reactivecollectives.testkit.RecordingBlockHoundIntegration;
}
