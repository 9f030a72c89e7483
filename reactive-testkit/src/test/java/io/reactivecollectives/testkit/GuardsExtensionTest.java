package io.reactivecollectives.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/** The guard extension on test classes of its own, run through JUnit's engine test kit. */
class GuardsExtensionTest {

    /** Blocks on Reactor's parallel scheduler and swallows BlockHound's error. */
    @ExtendWith(GuardsExtension.class)
    static class SwallowsABlockingCall {
        @Test
        void sleepsOnAParallelThread() {
            Mono.fromCallable(() -> {
                Thread.sleep(5);
                return 1;
            }).subscribeOn(Schedulers.parallel()).onErrorReturn(0).block(Duration.ofSeconds(10));
        }
    }

    /** Does nothing wrong. */
    @ExtendWith(GuardsExtension.class)
    static class Clean {
        @Test
        void releasesWhatItAllocates() {
            io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(8).release();
        }
    }

    private static List<Event> classFailures(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testClass)).execute()
                .containerEvents().failed().list();
    }

    @Test
    void aSwallowedBlockingCallFailsTheClass() {
        List<Event> failed = classFailures(SwallowsABlockingCall.class);
        assertEquals(1, failed.size(), failed.toString());
        Throwable error = failed.get(0).getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable).orElseThrow();
        assertTrue(error.getMessage().contains("1 blocking call(s) on non-blocking threads")
                && error.getMessage().contains("sleep"), error.getMessage());
        assertTrue(error.getMessage().contains("called from " + SwallowsABlockingCall.class.getName()),
                "the first frame outside the JDK is the test's lambda: " + error.getMessage());
    }

    @Test
    void aCleanClassPasses() {
        assertEquals(List.of(), classFailures(Clean.class));
    }
}
