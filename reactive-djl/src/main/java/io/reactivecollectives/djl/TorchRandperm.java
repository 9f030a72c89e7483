package io.reactivecollectives.djl;

/**
 * {@code torch.randperm(n, generator=g)} on the CPU after {@code g.manual_seed(seed)}, index for
 * index, so that {@link DistributedSampler} hands each rank the shard PyTorch's
 * {@code DistributedSampler} hands it.
 *
 * <p>PyTorch's CPU generator is a 32-bit Mersenne Twister (MT19937) seeded with the seed's low 32
 * bits ({@code at::mt19937}, the standard algorithm). {@code randperm} fills {@code 0..n-1} and
 * swaps element {@code i} with element {@code i + random() % (n - i)} for {@code i} from 0 to
 * {@code n - 2}, where {@code random()} is one 32-bit draw taken as unsigned. From
 * {@code n = 2^32 / 20} on, PyTorch 2 draws 64 bits per element instead (two draws, the first the
 * high half) and runs the inside-out variant; this class follows that too, as
 * {@code aten/src/ATen/native/TensorFactories.cpp} spells it (torch 1.13 keeps 32-bit draws there).
 */
final class TorchRandperm {

    /** PyTorch's bound for the 32-bit draws ({@code std::numeric_limits<uint32_t>::max() / 20}). */
    static final long SMALL_N_BOUND = 0xFFFF_FFFFL / 20;

    private static final int N = 624;
    private static final int M = 397;

    private final int[] state = new int[N];
    private int next = N;

    private TorchRandperm(long seed) {
        state[0] = (int) seed; // the low 32 bits, as at::mt19937 takes them
        for (int j = 1; j < N; j++) {
            state[j] = 1812433253 * (state[j - 1] ^ (state[j - 1] >>> 30)) + j;
        }
    }

    /**
     * The permutation of {@code 0..n-1} that {@code torch.randperm(n)} draws from a CPU generator
     * seeded with {@code seed}.
     *
     * @param n    the length ({@code 0 <= n <= Integer.MAX_VALUE - 8})
     * @param seed the generator's seed (its low 32 bits count, as in PyTorch)
     * @return a new array holding the permutation
     */
    static long[] permutation(int n, long seed) {
        TorchRandperm random = new TorchRandperm(seed);
        long[] r = new long[n];
        if (n < SMALL_N_BOUND) {
            for (int i = 0; i < n; i++) {
                r[i] = i;
            }
            for (int i = 0; i < n - 1; i++) {
                int z = (int) (Integer.toUnsignedLong(random.next32()) % (n - i));
                long saved = r[i];
                r[i] = r[z + i];
                r[z + i] = saved;
            }
        } else {
            for (int i = 0; i < n; i++) {
                long high = Integer.toUnsignedLong(random.next32());
                long draw = high << 32 | Integer.toUnsignedLong(random.next32());
                int z = (int) Long.remainderUnsigned(draw, i + 1L);
                r[i] = r[z];
                r[z] = i;
            }
        }
        return r;
    }

    /** The generator's next 32 bits (MT19937 with its standard tempering). */
    int next32() {
        if (next >= N) {
            twist();
        }
        int y = state[next++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9d2c5680;
        y ^= (y << 15) & 0xefc60000;
        y ^= y >>> 18;
        return y;
    }

    private void twist() {
        for (int i = 0; i < N; i++) {
            int y = (state[i] & 0x8000_0000) | (state[(i + 1) % N] & 0x7fff_ffff);
            state[i] = state[(i + M) % N] ^ (y >>> 1) ^ ((y & 1) != 0 ? 0x9908b0df : 0);
        }
        next = 0;
    }
}
