package io.reactivecollectives.testkit;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * BlockHound integration, loaded by BlockHound from this artifact's service file: a blocking call
 * on a non-blocking thread (Netty event loops, Reactor's parallel scheduler) still throws
 * BlockHound's error, and is also recorded so that {@link GuardsExtension} fails the class even
 * when the error was swallowed.
 */
public final class RecordingBlockHoundIntegration implements BlockHoundIntegration {

    /** Creates the integration (BlockHound does, through the service loader). */
    public RecordingBlockHoundIntegration() {
    }

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.blockingMethodCallback(method -> {
            Guards.recordBlocking(method.toString());
            throw new BlockingOperationError(method);
        });
        // Logging to the console from an event loop is allowed (slf4j-simple writes to stderr).
        builder.allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write");
        builder.allowBlockingCallsInside("java.io.PrintStream", "println");
        // Netty's adaptive allocator frees into a magazine under a short lock, which parks when
        // another thread holds it (seen on a loaded machine); Netty's own integration allows the same
        // locks of its pooled allocator (PoolChunk.free, PoolArena.lock) but not this one
        builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free");
    }

    @Override
    public int compareTo(BlockHoundIntegration o) {
        return 1; // after the built-in integrations
    }
}
