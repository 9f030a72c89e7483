package io.reactivecollectives.cuda;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * What the module does where CUDA cannot be used (no driver, no device, no natives): the probe
 * never throws and says why, and every entry point fails with that reason.
 */
class CudaUnavailableTest {

    @Test
    void theProbeNeverThrowsAndExplainsItself() {
        boolean available = assertDoesNotThrow(Cuda::isAvailable);
        String reason = assertDoesNotThrow(Cuda::unavailableReason);
        assertEquals(available, reason.isEmpty(), "a reason exactly when unavailable: '" + reason + "'");
        assertEquals(available, Cuda.isAvailable(), "the answer is remembered");
        if (!available) {
            assertTrue(reason.contains("cudaGetDeviceCount failed") || reason.contains("JCuda native library")
                    || reason.contains("no CUDA device") || reason.contains("rc.cuda.disabled"), reason);
        }
    }

    /**
     * The audit: {@code -Drc.cuda.disabled=abc} made the reason "the JCuda native library could not
     * be used: java.lang.IllegalArgumentException: setting rc.cuda.disabled ...", blaming JCuda for a
     * typo; the setting's own one-line error is the reason now, whatever the machine has.
     */
    @Test
    void aDisabledValueThatDoesNotParseIsTheReasonInTheSettingsWords() {
        String saved = System.getProperty("rc.cuda.disabled");
        System.setProperty("rc.cuda.disabled", "abc");
        try {
            assertEquals(new Cuda.Answer("setting rc.cuda.disabled (system property): 'abc' is not a valid boolean: "
                    + "expected true or false", 0), Cuda.probe());
        } finally {
            if (saved == null) {
                System.clearProperty("rc.cuda.disabled");
            } else {
                System.setProperty("rc.cuda.disabled", saved);
            }
        }
    }

    private static void assertUnavailable(String entryPoint, Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call, entryPoint);
        assertTrue(e.getMessage().startsWith("CUDA unavailable: " + Cuda.unavailableReason()), e.getMessage());
        assertTrue(e.getMessage().endsWith("(" + entryPoint + ")"), e.getMessage());
    }

    private static void assertUnavailable(String entryPoint, Mono<?> mono) {
        StepVerifier.create(mono)
                .expectErrorSatisfies(e -> {
                    assertTrue(e instanceof IllegalStateException, e.toString());
                    assertTrue(e.getMessage().startsWith("CUDA unavailable: " + Cuda.unavailableReason()), e.getMessage());
                    assertTrue(e.getMessage().endsWith("(" + entryPoint + ")"), e.getMessage());
                })
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void everyEntryPointReportsTheReason() {
        assumeFalse(Cuda.isAvailable(), "CUDA is available on this machine: the unavailable path is tested where it is not");
        Device cuda0 = Device.cuda(0);
        assertUnavailable("Cuda.deviceCount", Cuda::deviceCount);
        assertUnavailable("Cuda.device", () -> Cuda.device(0));
        assertUnavailable("Cuda.devices", Cuda::devices);
        assertUnavailable("Cuda.memoryInfo", () -> Cuda.memoryInfo(0));
        assertUnavailable("CudaMemory.allocate", () -> CudaMemory.allocate(cuda0, 1024));
        assertUnavailable("CudaTensors.empty", () -> CudaTensors.empty(cuda0, DType.FLOAT32, 4));
        assertUnavailable("CudaTensors.zeros", () -> CudaTensors.zeros(cuda0, DType.FLOAT32, 4));
        assertUnavailable("HostAllocator.pinned", HostAllocator::pinned);
        assertUnavailable("PinnedBufferPool.pinned", () -> PinnedBufferPool.pinned(1 << 20, 4));
        assertUnavailable("CudaStreams.hostToDevice", () -> CudaStreams.hostToDevice(cuda0));
        assertUnavailable("CudaStreams.deviceToHost", () -> CudaStreams.deviceToHost(cuda0));
        assertUnavailable("CudaStreams.newStream", () -> CudaStreams.newStream(cuda0));
        assertUnavailable("CudaStream.legacyDefault", () -> CudaStream.legacyDefault(cuda0));
        assertUnavailable("CudaCopies.create", CudaCopies::create);
        assertUnavailable("HostStagedProcessGroup.create", () -> HostStagedProcessGroup.create(null));
        assertUnavailable("HostStagedProcessGroup.create",
                () -> HostStagedProcessGroup.create(null, HostStagedProcessGroup.Options.DEFAULT));
    }

    @Test
    void reactiveEntryPointsSignalTheReasonAsAnError() {
        assumeFalse(Cuda.isAvailable(), "CUDA is available on this machine: the unavailable path is tested where it is not");
        Tensor cpu = Tensor.fromFloats(new float[] {1, 2});
        try {
            // no CudaCopies can be made here; the Mono factories still answer with the reason, as a signal
            assertUnavailable("CudaTensors.toDevice", CudaTensors.toDevice(cpu, Device.cuda(0), null));
            assertUnavailable("CudaTensors.toHost", CudaTensors.toHost(cpu, null));
            assertFalse(Cuda.isAvailable());
        } finally {
            cpu.release();
        }
    }
}
