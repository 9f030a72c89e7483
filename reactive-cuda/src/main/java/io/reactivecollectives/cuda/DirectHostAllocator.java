package io.reactivecollectives.cuda;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Plain direct host memory; a freed buffer's memory goes back when the garbage collector clears it. */
final class DirectHostAllocator implements HostAllocator {

    @Override
    public ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }

    @Override
    public void free(ByteBuffer buffer) {
        // nothing to do: the pool drops its last reference, and the buffer's cleaner frees the memory
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
