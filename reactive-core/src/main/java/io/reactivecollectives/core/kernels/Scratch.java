package io.reactivecollectives.core.kernels;

import static io.reactivecollectives.core.kernels.BlockDrivers.BLOCK_BYTES;

/**
 * One thread's block buffers for the Java kernels, made on first use of each element type
 * ({@link BlockDrivers} keeps one per thread, so no call allocates).
 */
final class Scratch {
    private java.nio.ByteBuffer element;   // one element split between two source regions (JDK-freed)
    private long elementAddress;
    private byte[] bytesA;
    private byte[] bytesB;
    private short[] shortsA;
    private short[] shortsB;
    private int[] intsA;
    private int[] intsB;
    private long[] longsA;
    private long[] longsB;
    private float[] floatsA;
    private float[] floatsB;
    private double[] doublesA;
    private double[] doublesB;

    long elementAddress() {
        if (element == null) {
            element = java.nio.ByteBuffer.allocateDirect(8);
            elementAddress = io.netty.util.internal.PlatformDependent.directBufferAddress(element);
        }
        return elementAddress;
    }

    byte[] bytesA() {
        return bytesA != null ? bytesA : (bytesA = new byte[BLOCK_BYTES]);
    }

    byte[] bytesB() {
        return bytesB != null ? bytesB : (bytesB = new byte[BLOCK_BYTES]);
    }

    short[] shortsA() {
        return shortsA != null ? shortsA : (shortsA = new short[BLOCK_BYTES / 2]);
    }

    short[] shortsB() {
        return shortsB != null ? shortsB : (shortsB = new short[BLOCK_BYTES / 2]);
    }

    int[] intsA() {
        return intsA != null ? intsA : (intsA = new int[BLOCK_BYTES / 4]);
    }

    int[] intsB() {
        return intsB != null ? intsB : (intsB = new int[BLOCK_BYTES / 4]);
    }

    long[] longsA() {
        return longsA != null ? longsA : (longsA = new long[BLOCK_BYTES / 8]);
    }

    long[] longsB() {
        return longsB != null ? longsB : (longsB = new long[BLOCK_BYTES / 8]);
    }

    float[] floatsA() {
        return floatsA != null ? floatsA : (floatsA = new float[BLOCK_BYTES / 4]);
    }

    float[] floatsB() {
        return floatsB != null ? floatsB : (floatsB = new float[BLOCK_BYTES / 4]);
    }

    double[] doublesA() {
        return doublesA != null ? doublesA : (doublesA = new double[BLOCK_BYTES / 8]);
    }

    double[] doublesB() {
        return doublesB != null ? doublesB : (doublesB = new double[BLOCK_BYTES / 8]);
    }
}
