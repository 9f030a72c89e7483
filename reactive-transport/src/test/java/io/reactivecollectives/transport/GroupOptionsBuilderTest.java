package io.reactivecollectives.transport;

import io.reactivecollectives.core.observe.FlightRecorder;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link GroupOptions#builder()} and {@link GroupOptions#toBuilder()}, and the {@code with...} methods through them. */
class GroupOptionsBuilderTest {

    private static final Diagnostics DIAGNOSTICS = new Diagnostics(true,
            FlightRecorder.Config.defaults().withCapacity(10).withDumpDirectory(Path.of("/tmp/dumps")), null, null,
            Duration.ofSeconds(1), DashboardOptions.loopback(0));
    private static final ErrorHandling TEAR_DOWN = ErrorHandling.tearDown(status -> { });

    /** Options with every setting away from its default. */
    private static GroupOptions everySetting() {
        return GroupOptions.builder().groupId("g").timeout(Duration.ofMinutes(1)).connectTimeout(Duration.ofSeconds(7))
                .host("10.0.0.1").secret("s").smallAllReduceBytes(1).smallBroadcastBytes(2).segmentBytes(128)
                .pipelineDepth(3).maxFramePayload(1024).maxUnclaimedBytes(4096).socketBufferBytes(8)
                .diagnostics(DIAGNOSTICS).heartbeatInterval(Duration.ofMillis(100)).missedHeartbeats(3)
                .errorHandling(TEAR_DOWN).resultDelivery(ResultDelivery.LIBRARY_THREADS).tls(null)
                .connectionsPerPeer(2).build();
    }

    @Test
    void builderToOptionsToBuilderGivesEqualOptions() {
        GroupOptions o = everySetting();
        assertEquals(o, o.toBuilder().build());
        assertEquals("g", o.groupId());
        assertEquals(Duration.ofSeconds(7), o.connectTimeout());
        assertEquals(3, o.missedHeartbeats());
        assertEquals(ResultDelivery.LIBRARY_THREADS, o.resultDelivery());
        assertEquals(2, o.connectionsPerPeer());
        assertEquals(DIAGNOSTICS, o.diagnostics());
        assertNotEquals(o, o.toBuilder().groupId("h").build());
    }

    @Test
    void anUntouchedBuilderGivesTheDefaults() {
        assertEquals(GroupOptions.defaults(), GroupOptions.builder().build());
    }

    @Test
    void theWithMethodsGiveWhatTheBuilderGives() {
        GroupOptions viaWith = GroupOptions.defaults().withGroupId("g").withTimeout(Duration.ofMinutes(1))
                .withConnectTimeout(Duration.ofSeconds(7)).withHost("10.0.0.1").withSecret("s")
                .withSmallAllReduceBytes(1).withSmallBroadcastBytes(2).withSegmentBytes(128).withMaxFramePayload(1024)
                .withPipelineDepth(3).withMaxUnclaimedBytes(4096).withSocketBufferBytes(8).withDiagnostics(DIAGNOSTICS)
                .withHeartbeat(Duration.ofMillis(100), 3).withErrorHandling(TEAR_DOWN)
                .withResultDelivery(ResultDelivery.LIBRARY_THREADS).withTls(null).withConnectionsPerPeer(2);
        assertEquals(everySetting(), viaWith);
    }

    @Test
    void buildChecksAsTheConstructorDoes() {
        assertThrows(IllegalArgumentException.class, () -> GroupOptions.builder().connectionsPerPeer(65).build());
        assertThrows(IllegalArgumentException.class, () -> GroupOptions.builder().segmentBytes(32).build());
        assertThrows(NullPointerException.class, () -> GroupOptions.builder().host(null).build());
        assertEquals(ErrorHandling.Mode.FAIL_OPERATIONS, GroupOptions.builder().errorHandling(null).build()
                .errorHandling().mode());
    }
    /**
     * The audit: a refused value said neither which setting nor what value ("timeouts must be
     * positive"; "need segmentBytes >= 64, pipelineDepth >= 1, maxFramePayload >= segmentBytes and
     * maxUnclaimedBytes >= maxFramePayload" for a segment of 32 MiB, whose fix is maxFramePayload).
     */
    @Test
    void aRefusedValueNamesTheSettingAndTheValue() {
        assertEquals("maxFramePayload (16777216) must be at least segmentBytes (33554432)", assertThrows(
                IllegalArgumentException.class, () -> GroupOptions.defaults().withSegmentBytes(32 << 20)).getMessage());
        assertEquals("segmentBytes must be at least 64, got 32", assertThrows(IllegalArgumentException.class,
                () -> GroupOptions.builder().segmentBytes(32).build()).getMessage());
        assertEquals("pipelineDepth must be at least 1, got 0", assertThrows(IllegalArgumentException.class,
                () -> GroupOptions.defaults().withPipelineDepth(0)).getMessage());
        assertEquals("maxUnclaimedBytes (1024) must be at least maxFramePayload (16777216)", assertThrows(
                IllegalArgumentException.class, () -> GroupOptions.defaults().withMaxUnclaimedBytes(1024)).getMessage());
        assertEquals("timeout must be positive, got PT0S", assertThrows(IllegalArgumentException.class,
                () -> GroupOptions.defaults().withTimeout(Duration.ZERO)).getMessage());
        assertEquals("connectTimeout must be positive, got PT-1S", assertThrows(IllegalArgumentException.class,
                () -> GroupOptions.defaults().withConnectTimeout(Duration.ofSeconds(-1))).getMessage());
    }
}
