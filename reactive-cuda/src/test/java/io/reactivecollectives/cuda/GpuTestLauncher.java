package io.reactivecollectives.cuda;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Runs the GPU tests without Maven, for the device machine (which reaches no package registry):
 * {@code java -cp 'perf/target-cuda/lib/*:perf/target-cuda/cuda-test-classes' io.reactivecollectives.cuda.GpuTestLauncher}
 * (see {@code perf/scripts/cuda_bench.sh gpu-tests}). Exits 0 when every test ran and passed, 1 on
 * a failure, 3 when tests were skipped (no usable GPU: the reason is printed).
 */
public final class GpuTestLauncher {

    private GpuTestLauncher() {
    }

    public static void main(String[] args) {
        System.out.println("CUDA available: " + Cuda.isAvailable() + " " + Cuda.unavailableReason());
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(CudaDeviceTest.class), selectClass(HostStagedCudaTest.class))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary s = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        s.printTo(out);
        s.printFailuresTo(out, 40);
        System.out.println(s.getTestsSucceededCount() + " passed, " + s.getTotalFailureCount() + " failed, "
                + (s.getTestsSkippedCount() + s.getTestsAbortedCount()) + " skipped");
        System.exit(s.getTotalFailureCount() > 0 ? 1 : s.getTestsAbortedCount() + s.getTestsSkippedCount() > 0 ? 3 : 0);
    }
}
