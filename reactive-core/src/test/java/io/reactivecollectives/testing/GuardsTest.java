package io.reactivecollectives.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.reactivecollectives.testkit.Guards;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Plants one fault of each kind and shows that the guards every test JVM runs catch it. */
class GuardsTest {

    @Test
    void leakDetectorRunsAtParanoid() {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel());
        assertTrue(Guards.isInstalled());
    }

    @Test
    void blockHoundCatchesABlockingCallOnAParallelThread() {
        Mono<Long> blocking = Mono.fromCallable(() -> {
            Thread.sleep(10);
            return 1L;
        }).subscribeOn(Schedulers.parallel());
        StepVerifier.create(blocking)
                .expectErrorSatisfies(e -> assertTrue(e instanceof BlockingOperationError,
                        "expected BlockHound's error, got " + e))
                .verify(Duration.ofSeconds(10));
        List<String> caught = Guards.drainBlockingCalls();
        assertFalse(caught.isEmpty(), "the guard recorded the blocking call");
        assertTrue(caught.get(0).contains("sleep") && caught.get(0).contains("parallel"), caught.get(0));
    }

    @Test
    void blockOnANonBlockingThreadFails() {
        Mono<Long> blocking = Mono.fromCallable(() -> Mono.delay(Duration.ofMillis(10)).block())
                .subscribeOn(Schedulers.parallel());
        StepVerifier.create(blocking)
                .expectErrorSatisfies(e -> assertTrue(e instanceof BlockingOperationError
                        || String.valueOf(e.getMessage()).contains("blocking, which is not supported"),
                        "expected a blocking error, got " + e))
                .verify(Duration.ofSeconds(10));
        Guards.drainBlockingCalls();
    }

    @Test
    void leakGuardCatchesAnUnreleasedBuffer() {
        Guards.drainLeaks();
        leakOne();
        List<String> leaks = Guards.awaitLeaks(Duration.ofSeconds(10));
        assertFalse(leaks.isEmpty(), "the leak detector reported the planted leak");
        assertTrue(leaks.get(0).contains("release() was not called"), leaks.get(0));
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(42);
        // dropped without release()
    }
}
