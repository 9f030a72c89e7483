package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.core.Tensors;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The child JVM of {@link JvmWarningsTest}: touches every path of the library that reaches raw
 * memory or native code (loading the native kernels, the Java kernels' block copies on BOOL,
 * {@link ByteCopies} between direct buffers, a tensor over a native address), checks the results
 * and prints {@code memory: foreign=<b> fastPath=<b>} and {@code QUIET CHILD OK}.
 */
public final class QuietChild {

    public static void main(String[] args) {
        ReduceKernels.load();
        Tensor a = Tensor.empty(DType.BOOL, 100);
        Tensor b = Tensor.empty(DType.BOOL, 100);
        for (int i = 0; i < 100; i++) {
            a.buffer().setByte(i, i % 2);
            b.buffer().setByte(i, i % 3 == 0 ? 1 : 0);
        }
        ReduceKernels.reduceInto(ReduceOp.SUM, a, b);  // logical OR, in the Java kernels
        for (int i = 0; i < 100; i++) {
            check(a.buffer().getByte(i) == (i % 2 == 1 || i % 3 == 0 ? 1 : 0), "BOOL SUM element " + i);
        }
        Tensor f = Tensor.empty(DType.FLOAT32, 1000);
        Tensor g = Tensor.empty(DType.FLOAT32, 1000);
        for (int i = 0; i < 1000; i++) {
            f.buffer().setFloatLE(4 * i, i);
            g.buffer().setFloatLE(4 * i, 0.5f);
        }
        ReduceKernels.reduceInto(ReduceOp.SUM, f, g);
        ReduceKernels.postprocess(ReduceOp.AVG, f, 2);
        check(f.buffer().getFloatLE(4 * 999) == (999 + 0.5f) / 2, "FLOAT32 AVG");
        ByteBuf copy = Tensor.empty(DType.FLOAT32, 1000).buffer();
        ByteCopies.copy(f.buffer(), 0, copy, 0, 4000);
        check(copy.getFloatLE(4 * 999) == f.buffer().getFloatLE(4 * 999), "ByteCopies.copy");
        ByteBuffer mem = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
        mem.putFloat(0, 2.5f);
        Tensor over = Tensors.wrap(mem.asFloatBuffer(), 16);  // through the buffer's address
        check(over.buffer().getFloatLE(0) == 2.5f, "a tensor over a direct FloatBuffer");
        for (Tensor t : new Tensor[] {a, b, f, g, over}) {
            t.release();
        }
        copy.release();
        System.out.println("memory: foreign=" + Memory.FOREIGN + " fastPath=" + ReduceKernels.fastPathAvailable());
        System.out.println("QUIET CHILD OK");
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what + " is wrong");
        }
    }
}
