package io.reactivecollectives.core;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * Netty buffers over memory the library did not allocate (a caller's direct buffer, or native
 * memory at an address): never freed by Netty; when the reference count drops to 0 they run the
 * owner's release callback, exactly once, and drop their reference to the owner's objects. They
 * are watched by Netty's leak detector like pooled tensors, so a wrapped tensor that is never
 * released (and whose callback therefore never runs) is reported.
 */
final class ForeignMemory {

    private static final Logger LOG = LoggerFactory.getLogger(ForeignMemory.class);
    private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

    private ForeignMemory() {
    }

    /**
     * A buffer over {@code bytes} ({@code [position, limit)}, writable, direct) with its writer index
     * at the end; {@code onRelease} (may be null) runs when its count drops to 0, {@code owner} is
     * kept reachable until then (the object whose memory {@code bytes} views, may be null).
     */
    static ByteBuf of(ByteBuffer bytes, Runnable onRelease, Object owner, String what) {
        return LeakTracking.track(PlatformDependent.hasUnsafe()
                ? new UnsafeForeign(bytes, new Releaser(onRelease, owner, what))
                : new Foreign(bytes, new Releaser(onRelease, owner, what)));
    }

    /** Reaches Netty's {@code toLeakAwareBuffer}, which allocators apply to what they allocate. */
    private abstract static class LeakTracking extends AbstractByteBufAllocator {
        static ByteBuf track(ByteBuf buf) {
            return toLeakAwareBuffer(buf);
        }
    }

    /** Runs the callback once; an exception from it is logged, not thrown into whoever released last. */
    private static final class Releaser {
        private Runnable onRelease;
        @SuppressWarnings("unused") // keeps the owner's memory reachable while the tensor lives
        private Object owner;
        private final String what;

        Releaser(Runnable onRelease, Object owner, String what) {
            this.onRelease = onRelease;
            this.owner = owner;
            this.what = what;
        }

        void run() {
            Runnable r = onRelease;
            onRelease = null;
            owner = null;
            if (r != null) {
                try {
                    r.run();
                } catch (RuntimeException | Error e) {
                    LOG.warn("release callback of {} threw; the memory may not have been freed", what, e);
                }
            }
        }
    }

    private static final class Foreign extends UnpooledDirectByteBuf {
        private final Releaser releaser;

        Foreign(ByteBuffer bytes, Releaser releaser) {
            super(ALLOC, bytes, bytes.remaining());
            this.releaser = releaser;
        }

        @Override
        protected void deallocate() {
            try {
                super.deallocate();
            } finally {
                releaser.run();
            }
        }
    }

    private static final class UnsafeForeign extends UnpooledUnsafeDirectByteBuf {
        private final Releaser releaser;

        UnsafeForeign(ByteBuffer bytes, Releaser releaser) {
            super(ALLOC, bytes, bytes.remaining());
            this.releaser = releaser;
        }

        @Override
        protected void deallocate() {
            try {
                super.deallocate();
            } finally {
                releaser.run();
            }
        }
    }
}
