package io.reactivecollectives.core;

/**
 * A HyperLogLog sketch of a set of keys' 64-bit hashes ({@value #REGISTERS} one-byte registers,
 * about 2.3% standard error), so the ranks of a keyed all-reduce can estimate the union of their
 * keys from {@value #REGISTERS} bytes each. Also the keys' hashing: {@link #mix} spreads a hash or
 * a {@code long} key, {@link #hash} hashes a key's encoding.
 */
final class KeySketch {

    static final int BITS = 11;
    static final int REGISTERS = 1 << BITS;

    private final byte[] registers;

    KeySketch() {
        this(new byte[REGISTERS]);
    }

    private KeySketch(byte[] registers) {
        this.registers = registers;
    }

    /** A sketch over {@code REGISTERS} bytes read from {@code src} at {@code at} (not copied). */
    static KeySketch of(byte[] src, int at) {
        byte[] r = new byte[REGISTERS];
        System.arraycopy(src, at, r, 0, REGISTERS);
        return new KeySketch(r);
    }

    byte[] registers() {
        return registers;
    }

    /** Adds a key by its mixed hash. */
    void add(long mixed) {
        int idx = (int) (mixed >>> (64 - BITS));
        long rest = mixed << BITS;
        int rank = Math.min(Long.numberOfLeadingZeros(rest), 64 - BITS) + 1;
        if (rank > registers[idx]) {
            registers[idx] = (byte) rank;
        }
    }

    /** Folds {@code other} into this sketch (the union of both sets). */
    void merge(KeySketch other) {
        for (int i = 0; i < REGISTERS; i++) {
            registers[i] = (byte) Math.max(registers[i], other.registers[i]);
        }
    }

    /** The estimated number of distinct keys. */
    double estimate() {
        double sum = 0;
        int zeros = 0;
        for (byte r : registers) {
            sum += Math.scalb(1.0, -r);
            zeros += r == 0 ? 1 : 0;
        }
        double m = REGISTERS;
        double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
        return e <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : e;
    }

    /** splitmix64's finalizer: every bit of {@code x} moves every bit of the result. */
    static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    /** A key's encoding hashed ({@link #fnv1a}) and mixed. */
    static long hash(byte[] b, int from, int len) {
        return mix(fnv1a(b, from, len));
    }

    /** FNV-1a, 64 bits, of {@code len} bytes of {@code b} from {@code from}. */
    static long fnv1a(byte[] b, int from, int len) {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < from + len; i++) {
            h = (h ^ (b[i] & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    /** The rank that owns a key of mixed hash {@code mixed} among {@code n}: its low bits, the sketch using the high ones. */
    static int owner(long mixed, int n) {
        return (int) Long.remainderUnsigned(mixed, n);
    }
}
