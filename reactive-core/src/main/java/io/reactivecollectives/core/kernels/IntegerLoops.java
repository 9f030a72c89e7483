package io.reactivecollectives.core.kernels;

import io.reactivecollectives.core.ReduceOp;

/**
 * The integer and bool arithmetic of the Java kernels, on blocks in Java arrays:
 * {@code a[i] = op(a[i], b[i])} for {@code i < m} (integers wrap; UINT8 compares and divides
 * unsigned; BOOL results are 0 or 1), and AVG's division. One small loop per (op, type), so that
 * C2 compiles (and vectorises) each on its own.
 */
final class IntegerLoops {
    private IntegerLoops() {
    }

    static void bools(ReduceOp.Kind k, byte[] a, byte[] b, int m) {
        switch (k) {
            case SUM:
            case MAX:
            case BOR:
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) ((a[i] | b[i]) != 0 ? 1 : 0);
                }
                break;
            case PRODUCT:
            case MIN:
            case BAND:
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) (a[i] != 0 & b[i] != 0 ? 1 : 0);
                }
                break;
            case BXOR:
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) (a[i] != 0 ^ b[i] != 0 ? 1 : 0);
                }
                break;
            default:
                throw new AssertionError(k);
        }
    }

    static void bytes(ReduceOp.Kind k, boolean unsigned, byte[] a, byte[] b, int m) {
        switch (k) {
            case SUM:
            case AVG:
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) (a[i] + b[i]);
                }
                break;
            case PRODUCT:
                for (int i = 0; i < m; i++) {
                    a[i] = (byte) (a[i] * b[i]);
                }
                break;
            case MIN:
                if (unsigned) {
                    // branch-free: d = u - v; d >> 31 is all ones exactly when u < v
                    for (int i = 0; i < m; i++) {
                        int u = a[i] & 0xff;
                        int d = u - (b[i] & 0xff);
                        a[i] = (byte) (u - (d & ~(d >> 31)));
                    }
                } else {
                    for (int i = 0; i < m; i++) {
                        int u = a[i];
                        int d = u - b[i];
                        a[i] = (byte) (u - (d & ~(d >> 31)));
                    }
                }
                break;
            case MAX:
                if (unsigned) {
                    for (int i = 0; i < m; i++) {
                        int u = a[i] & 0xff;
                        int d = u - (b[i] & 0xff);
                        a[i] = (byte) (u - (d & (d >> 31)));
                    }
                } else {
                    for (int i = 0; i < m; i++) {
                        int u = a[i];
                        int d = u - b[i];
                        a[i] = (byte) (u - (d & (d >> 31)));
                    }
                }
                break;
            case BAND:
                for (int i = 0; i < m; i++) {
                    a[i] &= b[i];
                }
                break;
            case BOR:
                for (int i = 0; i < m; i++) {
                    a[i] |= b[i];
                }
                break;
            case BXOR:
                for (int i = 0; i < m; i++) {
                    a[i] ^= b[i];
                }
                break;
            default:
                throw new AssertionError(k);
        }
    }

    static void ints(ReduceOp.Kind k, int[] a, int[] b, int m) {
        switch (k) {
            case SUM:
            case AVG:
                for (int i = 0; i < m; i++) {
                    a[i] += b[i];
                }
                break;
            case PRODUCT:
                for (int i = 0; i < m; i++) {
                    a[i] *= b[i];
                }
                break;
            case MIN:
                for (int i = 0; i < m; i++) {
                    a[i] = Math.min(a[i], b[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < m; i++) {
                    a[i] = Math.max(a[i], b[i]);
                }
                break;
            case BAND:
                for (int i = 0; i < m; i++) {
                    a[i] &= b[i];
                }
                break;
            case BOR:
                for (int i = 0; i < m; i++) {
                    a[i] |= b[i];
                }
                break;
            case BXOR:
                for (int i = 0; i < m; i++) {
                    a[i] ^= b[i];
                }
                break;
            default:
                throw new AssertionError(k);
        }
    }

    static void longs(ReduceOp.Kind k, long[] a, long[] b, int m) {
        switch (k) {
            case SUM:
            case AVG:
                for (int i = 0; i < m; i++) {
                    a[i] += b[i];
                }
                break;
            case PRODUCT:
                for (int i = 0; i < m; i++) {
                    a[i] *= b[i];
                }
                break;
            case MIN:
                for (int i = 0; i < m; i++) {
                    a[i] = Math.min(a[i], b[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < m; i++) {
                    a[i] = Math.max(a[i], b[i]);
                }
                break;
            case BAND:
                for (int i = 0; i < m; i++) {
                    a[i] &= b[i];
                }
                break;
            case BOR:
                for (int i = 0; i < m; i++) {
                    a[i] |= b[i];
                }
                break;
            case BXOR:
                for (int i = 0; i < m; i++) {
                    a[i] ^= b[i];
                }
                break;
            default:
                throw new AssertionError(k);
        }
    }

    static void divideBytes(byte[] a, int m, int n, boolean unsigned) {
        if (unsigned) {
            for (int i = 0; i < m; i++) {
                a[i] = (byte) ((a[i] & 0xff) / n);
            }
        } else {
            for (int i = 0; i < m; i++) {
                a[i] = (byte) (a[i] / n);
            }
        }
    }

    static void divideInts(int[] a, int m, int n) {
        for (int i = 0; i < m; i++) {
            a[i] /= n;
        }
    }

    static void divideLongs(long[] a, int m, long n) {
        for (int i = 0; i < m; i++) {
            a[i] /= n;
        }
    }
}
