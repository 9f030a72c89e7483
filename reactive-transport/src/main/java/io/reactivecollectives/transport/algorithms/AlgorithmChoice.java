package io.reactivecollectives.transport.algorithms;

/**
 * Where the group switches algorithms, by message size <em>and</em> world size, from the classic
 * latency-bandwidth (alpha-beta) cost model of Thakur, Rabenseifner and Gropp ("Optimization of
 * Collective Communication Operations in MPICH", 2005).
 *
 * <p>All-reduce: recursive doubling takes {@code log2 p} rounds ({@code p} the largest power of two
 * not over {@code n}), plus 2 when {@code n} is not a power of two (the fold and unfold of the
 * extra ranks), each moving the whole buffer; the ring takes {@code 2 (n - 1)} rounds moving
 * {@code 2 (n - 1) / n} of it in all. Recursive doubling wins while
 * {@code alpha (ringRounds - rdRounds) > beta B (rdRounds - 2 (n - 1) / n)}. The configured
 * threshold ({@code GroupOptions.smallAllReduceBytes}, measured at 2 ranks) stands for
 * {@code alpha / beta}; at 2 ranks, where the model cannot tell the two apart (the ring's
 * advantage there is its pipelining), it is the threshold itself. Thresholds at 64 KiB:
 * n = 3: 38 KiB, 4: 512 KiB, 5: 107 KiB, 8: 563 KiB, 16: 780 KiB.
 *
 * <p>Broadcast: the binomial tree's critical path carries the whole buffer {@code ceil(log2 n)}
 * times, the pipelined chain's about once, so the size from which bandwidth dominates, and the
 * chain wins, shrinks by {@code ceil(log2 n)}: the configured threshold (measured at 2 ranks)
 * divided by {@code ceil(log2 n)}.
 */
public final class AlgorithmChoice {

    private AlgorithmChoice() {
    }

    /** Largest all-reduce, in bytes, that recursive doubling runs at world size {@code n}. */
    public static long recursiveDoublingLimit(long thresholdAtTwo, int n) {
        if (n <= 2) {
            return thresholdAtTwo;
        }
        int log = 31 - Integer.numberOfLeadingZeros(n);            // log2 of the largest power of two <= n
        double rdRounds = log + ((n & (n - 1)) == 0 ? 0 : 2);
        double ringRounds = 2.0 * (n - 1);
        double extraBytes = rdRounds - 2.0 * (n - 1) / n;          // whole buffers recursive doubling moves beyond the ring
        return (long) (thresholdAtTwo * (ringRounds - rdRounds) / extraBytes);
    }

    /** Largest broadcast, in bytes, that the binomial tree runs at world size {@code n}. */
    public static long binomialTreeLimit(long thresholdAtTwo, int n) {
        int levels = n <= 2 ? 1 : 32 - Integer.numberOfLeadingZeros(n - 1);   // ceil(log2 n)
        return thresholdAtTwo / levels;
    }
}
