package io.reactivecollectives.core.kernels;

import io.netty.buffer.ByteBuf;

/**
 * Copies {@code m} elements between memory and an array: through {@link Memory} (raw copies)
 * when {@code buf} is null ({@code pos} is an address), else through the buffer's
 * little-endian accessors ({@code pos} is a byte index).
 */
final class Transfer {
    private Transfer() {
    }

    static void in(ByteBuf buf, long pos, byte[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
            buf.getBytes((int) pos, a, 0, m);
        }
    }

    static void out(byte[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
            ByteCopies.copy(a, 0, buf, (int) pos, m);
        }
    }

    static void in(ByteBuf buf, long pos, short[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                a[i] = buf.getShortLE(p + 2 * i);
            }
        }
    }

    static void out(short[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                buf.setShortLE(p + 2 * i, a[i]);
            }
        }
    }

    static void in(ByteBuf buf, long pos, int[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                a[i] = buf.getIntLE(p + 4 * i);
            }
        }
    }

    static void out(int[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                buf.setIntLE(p + 4 * i, a[i]);
            }
        }
    }

    static void in(ByteBuf buf, long pos, long[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                a[i] = buf.getLongLE(p + 8 * i);
            }
        }
    }

    static void out(long[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                buf.setLongLE(p + 8 * i, a[i]);
            }
        }
    }

    static void in(ByteBuf buf, long pos, float[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                a[i] = Float.intBitsToFloat(buf.getIntLE(p + 4 * i));
            }
        }
    }

    static void out(float[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                buf.setIntLE(p + 4 * i, Float.floatToRawIntBits(a[i]));
            }
        }
    }

    static void in(ByteBuf buf, long pos, double[] a, int m) {
        if (buf == null) {
            Memory.toArray(pos, a, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                a[i] = Double.longBitsToDouble(buf.getLongLE(p + 8 * i));
            }
        }
    }

    static void out(double[] a, ByteBuf buf, long pos, int m) {
        if (buf == null) {
            Memory.fromArray(a, pos, m);
        } else {
            int p = (int) pos;
            for (int i = 0; i < m; i++) {
                buf.setLongLE(p + 8 * i, Double.doubleToRawLongBits(a[i]));
            }
        }
    }
}
