package io.reactivecollectives.transport.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.kernels.ReduceKernels;

/** Timing of the pieces of the data path on one thread (not a test): reduce and copy of 512 KiB. */
public final class KernelTiming {
    public static void main(String[] args) {
        int bytes = 512 * 1024;
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(bytes);
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(bytes);
        a.writeZero(bytes);
        b.writeZero(bytes);
        for (int round = 0; round < 3; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                ReduceKernels.reduceInto(ReduceOp.MAX, DType.FLOAT32, a, 0, b, 0, bytes / 4);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                a.setBytes(0, b, 0, bytes);
            }
            long t2 = System.nanoTime();
            System.out.printf("reduce 512KiB: %.1f us, copy 512KiB: %.1f us (fast path %s)%n", (t1 - t0) / 1e6,
                    (t2 - t1) / 1e6, ReduceKernels.fastPathAvailable());
        }
        a.release();
        b.release();
    }
}
