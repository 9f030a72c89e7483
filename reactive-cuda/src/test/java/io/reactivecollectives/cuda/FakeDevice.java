package io.reactivecollectives.cuda;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Device;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Host memory standing in for device memory, for tests of the staging logic on machines without a
 * GPU: "device" tensors are {@link CudaMemory} over direct buffers (through the package seam), and
 * {@link Copies} copies bytes with memcpy on {@link CudaScheduler} after a set latency, as a CUDA
 * copy waits for its event there.
 */
final class FakeDevice {

    /**
     * Native memory access for the fake device's "device memory" (plain native addresses): through
     * {@code sun.misc.Unsafe} directly, because Netty's own copy of it is off on JDK 24 and later.
     */
    @SuppressWarnings("removal")
    static final class RawMemory {
        private static final sun.misc.Unsafe U;

        static {
            try {
                java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                U = (sun.misc.Unsafe) f.get(null);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private RawMemory() {
        }

        static void putInt(long address, int v) {
            U.putInt(address, v);
        }

        static int getInt(long address) {
            return U.getInt(address);
        }

        static void copy(long from, long to, long bytes) {
            U.copyMemory(from, to, bytes);
        }
    }


    private FakeDevice() {
    }

    /** A "cuda:0" tensor in direct host memory; released like a real one. */
    static Tensor tensor(DType dtype, long numel) {
        long bytes = numel * dtype.byteSize();
        ByteBuf backing = PooledByteBufAllocator.DEFAULT.directBuffer((int) Math.max(1, bytes));
        return CudaMemory.wrap(Device.cuda(0), backing.memoryAddress(), bytes, Schedulers.immediate(), a -> backing.release())
                .asTensor(dtype, numel);
    }

    /** A "cuda:0" FLOAT32 tensor holding {@code values}. */
    static Tensor floats(float... values) {
        Tensor t = tensor(DType.FLOAT32, values.length);
        for (int i = 0; i < values.length; i++) {
            RawMemory.putInt(t.address() + 4L * i, Float.floatToRawIntBits(values[i]));
        }
        return t;
    }

    /** The FLOAT32 elements of a fake device tensor. */
    static float[] read(Tensor t) {
        float[] out = new float[(int) t.numel()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Float.intBitsToFloat(RawMemory.getInt(t.address() + 4L * i));
        }
        return out;
    }

    /** A memcpy copy engine with a latency per copy, recording the threads that completed copies. */
    static final class Copies implements CopyEngine {
        final long latencyMillis;
        final List<String> threads = new CopyOnWriteArrayList<>();

        Copies(long latencyMillis) {
            this.latencyMillis = latencyMillis;
        }

        @Override
        public Mono<Void> copy(Tensor src, Tensor dst) {
            return Mono.<Void>fromRunnable(() -> {
                if (src.nbytes() != dst.nbytes()) {
                    throw new IllegalArgumentException("sizes differ");
                }
                if (latencyMillis > 0) {
                    try {
                        Thread.sleep(latencyMillis); // stands for cudaEventSynchronize
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                RawMemory.copy(src.address(), dst.address(), src.nbytes());
                threads.add(Thread.currentThread().getName());
            }).subscribeOn(CudaScheduler.get());
        }
    }
}
