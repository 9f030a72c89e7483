package io.reactivecollectives.testkit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.kernels.ReduceKernels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The main class of the JVM that {@link ArgLineTest} starts with nothing but
 * {@link GuardsExtension#ARG_LINE}, as a user's Surefire would: runs a test class without the
 * extension, then one with it, through one JUnit launcher session, and exits 0 when all
 * {@value #TESTS} tests passed and no class failed.
 */
public final class GuardedJvmMain {

    static final int TESTS = 3;

    private GuardedJvmMain() {
    }

    /**
     * Runs the two classes and exits.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        long succeeded = 0;
        long failed = 0;
        try (LauncherSession session = LauncherFactory.openSession()) {
            for (Class<?> c : List.of(WithoutTheExtension.class, WithTheExtension.class)) {
                SummaryGeneratingListener listener = new SummaryGeneratingListener();
                session.getLauncher().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(c)).build(),
                        listener);
                TestExecutionSummary summary = listener.getSummary();
                summary.printFailuresTo(new PrintWriter(System.out, true), 30);
                succeeded += summary.getTestsSucceededCount();
                failed += summary.getTotalFailureCount();
            }
        }
        System.out.println("guarded JVM: " + succeeded + " tests succeeded, " + failed + " failures");
        System.exit(failed == 0 && succeeded == TESTS ? 0 : 1);
    }

    /** Runs first, without {@link GuardsExtension}: only the session listener set the leak guard up. */
    static class WithoutTheExtension {
        @Test
        void leaksAreRecordedAtParanoid() {
            assertNull(System.getProperty("io.netty.leakDetection.level"), "no JVM option sets the level");
            assertTrue(Guards.isInstalled(), "GuardsSessionListener installed the guards");
            assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
            Guards.drainLeaks();
            leakOne();
            List<String> leaks = Guards.awaitLeaks(Duration.ofSeconds(10));
            assertFalse(leaks.isEmpty(), "the recording detector reported the planted leak");
        }

        private static void leakOne() {
            ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
            leaked.writeLong(42);
            // dropped without release()
        }
    }

    /** A user's guarded test class: BlockHound catches a blocking call; two ranks reduce. */
    @ExtendWith(GuardsExtension.class)
    static class WithTheExtension {
        @RegisterExtension
        static final LocalClusterExtension CLUSTER = LocalClusterExtension.ranks(2);

        @Test
        void blockHoundCatchesABlockingCall() {
            Mono<Integer> blocking = Mono.fromCallable(() -> {
                Thread.sleep(5);
                return 1;
            }).subscribeOn(Schedulers.parallel());
            StepVerifier.create(blocking)
                    .expectErrorSatisfies(e -> assertTrue(e instanceof BlockingOperationError, "BlockHound's error, got " + e))
                    .verify(Duration.ofSeconds(10));
            List<String> caught = Guards.drainBlockingCalls();
            assertEquals(1, caught.size(), caught.toString());
            assertTrue(caught.get(0).contains("sleep"), caught.get(0));
        }

        @Test
        void ranksReduceWithTheNativeKernelsLoaded() {
            ReduceKernels.load();   // System.load: a restricted method on JDK 22 and later
            List<Tensor> out = CLUSTER.run(g -> g.allReduce(Tensor.fromFloats(new float[] {g.rank(), 1}), ReduceOp.SUM));
            try {
                for (Tensor t : out) {
                    assertArrayEquals(new float[] {1, 2}, t.toFloatArray());
                }
            } finally {
                out.forEach(Tensor::release);
            }
        }
    }
}
