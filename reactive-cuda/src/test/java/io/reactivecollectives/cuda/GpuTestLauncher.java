package io.reactivecollectives.cuda;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * Runs the GPU tests without Maven, for the device machine (which reaches no package registry):
 * {@code java -cp 'perf/target-cuda/lib/*:perf/target-cuda/cuda-test-classes' io.reactivecollectives.cuda.GpuTestLauncher}
 * (see {@code perf/scripts/cuda_bench.sh gpu-tests}). Prints each test as it starts and ends; a test
 * that runs past {@code rc.test.gpu.testTimeout} (default 60 s) fails with a thread dump, and when
 * the whole run passes {@code rc.test.gpu.deadlineSeconds} (default 300) every thread's stack is
 * printed and the launcher exits with 4, so a device lease never ends with nothing to read. Exits 0
 * when every test ran and passed, 1 on a failure, 3 when tests were skipped (no usable GPU: the
 * reason is printed).
 */
public final class GpuTestLauncher {

    private GpuTestLauncher() {
    }

    public static void main(String[] args) {
        System.out.println("CUDA available: " + Cuda.isAvailable() + " " + Cuda.unavailableReason());
        startDeadline(Long.getLong("rc.test.gpu.deadlineSeconds", 300));
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors(System.getProperty("rc.test.gpu.select", "")))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .configurationParameter("junit.jupiter.execution.timeout.default",
                        System.getProperty("rc.test.gpu.testTimeout", "60 s"))
                .configurationParameter("junit.jupiter.execution.timeout.thread.mode.default", "SEPARATE_THREAD")
                .configurationParameter("junit.jupiter.execution.timeout.threaddump.enabled", "true")
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener, new Progress());
        TestExecutionSummary s = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        s.printTo(out);
        s.printFailuresTo(out, 40);
        System.out.println(s.getTestsSucceededCount() + " passed, " + s.getTotalFailureCount() + " failed, "
                + (s.getTestsSkippedCount() + s.getTestsAbortedCount()) + " skipped");
        System.exit(s.getTotalFailureCount() > 0 ? 1 : s.getTestsAbortedCount() + s.getTestsSkippedCount() > 0 ? 3 : 0);
    }

    /**
     * The tests to run: both GPU test classes, or those {@code select} names, comma separated, each a
     * simple class name or {@code Class#method} (for a short lease: {@code -Drc.test.gpu.select=CudaDeviceTest}).
     */
    private static List<DiscoverySelector> selectors(String select) {
        List<DiscoverySelector> out = new ArrayList<>();
        for (String name : select.split(",")) {
            String n = name.strip();
            if (!n.isEmpty()) {
                String qualified = GpuTestLauncher.class.getPackageName() + "." + n;
                out.add(n.contains("#") ? selectMethod(qualified) : selectClass(qualified));
            }
        }
        if (out.isEmpty()) {
            out.add(selectClass(CudaDeviceTest.class));
            out.add(selectClass(HostStagedCudaTest.class));
        }
        return out;
    }

    /** After {@code seconds}, prints every thread's stack and exits with 4. */
    private static void startDeadline(long seconds) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(seconds * 1000);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("GPU tests still running after " + seconds + " s; every thread's stack:");
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                System.out.println("\"" + e.getKey().getName() + "\" " + e.getKey().getState());
                for (StackTraceElement f : e.getValue()) {
                    System.out.println("    at " + f);
                }
            }
            System.out.flush();
            Runtime.getRuntime().halt(4);
        }, "gpu-tests-deadline");
        t.setDaemon(true);
        t.start();
    }

    /** Prints each test as it starts and as it ends, with its time. */
    private static final class Progress implements TestExecutionListener {
        private final Map<String, Long> started = new ConcurrentHashMap<>();

        @Override
        public void executionStarted(TestIdentifier id) {
            if (id.isTest()) {
                started.put(id.getUniqueId(), System.nanoTime());
                System.out.println("start " + id.getDisplayName());
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            Long t0 = started.remove(id.getUniqueId());
            if (id.isTest() && t0 != null) {
                System.out.printf("end   %s %s in %d ms%n", id.getDisplayName(), result.getStatus(),
                        (System.nanoTime() - t0) / 1_000_000);
            }
        }
    }
}
