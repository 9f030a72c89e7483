package io.reactivecollectives.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.reactivecollectives.core.kernels.ReduceKernels;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ReduceKernels#reduceIntoScattered} on sources made of several memory regions, as the
 * transport hands out large frames (a composite of socket reads): the result must equal
 * {@link ReduceKernels#reduceInto} on the same bytes laid out contiguously, for every valid
 * (op, dtype) pair, with region boundaries that cut elements in two.
 */
class ReduceKernelsScatteredTest {

    private static final String[] OPS = {"sum", "avg", "product", "min", "max", "band", "bor", "bxor", "premul_sum:0.5"};

    @Test
    void everyPairMatchesTheContiguousReductionWhenRegionsSplitElements() {
        Random rnd = new Random(7);
        int checked = 0;
        for (String name : OPS) {
            ReduceOp op = ReduceOp.parse(name);
            for (DType dtype : DType.values()) {
                if (!op.supports(dtype)) {
                    continue;
                }
                for (int count : new int[] {1, 3, 517, 4099}) {
                    check(op, dtype, count, rnd);
                    checked++;
                }
            }
        }
        assertEquals((81 - 1 - 12 - 5) * 4, checked);
    }

    private static void check(ReduceOp op, DType dtype, int count, Random rnd) {
        int es = dtype.byteSize();
        int bytes = count * es;
        byte[] a = new byte[bytes];
        byte[] b = new byte[bytes];
        rnd.nextBytes(a);
        rnd.nextBytes(b);
        if (dtype.isFloatingPoint()) {
            // no NaN or infinity in the inputs (NaN payloads are not part of the contract): clear
            // the top exponent bit, in the last (most significant) byte of each little-endian element
            for (int i = es - 1; i < bytes; i += es) {
                a[i] &= (byte) 0xBF;
                b[i] &= (byte) 0xBF;
            }
        }
        if (dtype == DType.BOOL) {
            for (int i = 0; i < bytes; i++) {
                a[i] &= 1;
                b[i] &= 1;
            }
        }
        PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        ByteBuf expected = alloc.directBuffer(bytes).writeBytes(a);
        ByteBuf actual = alloc.directBuffer(bytes).writeBytes(a);
        ByteBuf contiguous = alloc.directBuffer(bytes).writeBytes(b);
        CompositeByteBuf scattered = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
        try {
            // regions of odd lengths (1, 3, 5, ... bytes, then the rest), so elements straddle them
            int at = 0;
            int len = 1;
            while (at < bytes) {
                int n = Math.min(len, bytes - at);
                scattered.addComponent(true, alloc.directBuffer(n).writeBytes(b, at, n));
                at += n;
                len = len * 3 + 2;
            }
            assertFalse(scattered.hasMemoryAddress() && scattered.numComponents() > 1);
            ReduceKernels.reduceInto(op, dtype, expected, 0, contiguous, 0, count);
            ReduceKernels.reduceIntoScattered(op, dtype, actual, 0, scattered, 0, count);
            assertTrue(ByteBufUtil.equals(expected, actual),
                    () -> op + " " + dtype + " x" + count + ": scattered and contiguous reductions differ");
        } finally {
            expected.release();
            actual.release();
            contiguous.release();
            scattered.release();
        }
    }
}
