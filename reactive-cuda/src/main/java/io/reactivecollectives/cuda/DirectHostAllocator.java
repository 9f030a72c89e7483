package io.reactivecollectives.cuda;

import io.netty.util.internal.PlatformDependent;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Plain direct host memory; frees eagerly through Netty's cleaner access. */
final class DirectHostAllocator implements HostAllocator {

    @Override
    public ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    @Override
    public void free(ByteBuffer buffer) {
        PlatformDependent.freeDirectBuffer(buffer);
    }

    @Override
    public Scheduler scheduler() {
        return Schedulers.immediate();
    }

    @Override
    public String name() {
        return "direct";
    }
}
