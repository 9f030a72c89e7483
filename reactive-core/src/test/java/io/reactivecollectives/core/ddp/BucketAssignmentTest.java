package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BucketAssignmentTest {

    private static List<BucketAssignment.Entry> floats(long... bytes) {
        List<BucketAssignment.Entry> out = new ArrayList<>();
        for (long b : bytes) {
            out.add(new BucketAssignment.Entry(b, DType.FLOAT32, false));
        }
        return out;
    }

    @Test
    void reverseOrderSmallFirstBucketThenCap() {
        // registration order 0..5; gradients become ready 5, 4, ..., 0
        List<List<Integer>> b = BucketAssignment.assign(floats(40, 40, 40, 40, 40, 40), 100, 50);
        // first bucket closes at >= 50 bytes: {5, 4}; then >= 100: {3, 2, 1}; rest {0}
        assertEquals(List.of(List.of(5, 4), List.of(3, 2, 1), List.of(0)), b);
    }

    @Test
    void aParameterLargerThanTheCapGetsItsOwnBucket() {
        List<List<Integer>> b = BucketAssignment.assign(floats(10, 500, 10), 100, 20);
        assertEquals(List.of(List.of(2, 1), List.of(0)), b);
        List<List<Integer>> c = BucketAssignment.assign(floats(10, 10, 500, 10, 10), 100, 15);
        assertEquals(List.of(List.of(4, 3), List.of(2), List.of(1, 0)), c);
    }

    @Test
    void defaultLimitsAre1And25MiB() {
        long mib = 1L << 20;
        List<List<Integer>> b = BucketAssignment.assign(floats(10 * mib, 10 * mib, 10 * mib, mib / 2, mib / 2),
                BucketAssignment.DEFAULT_BUCKET_CAP_BYTES, BucketAssignment.DEFAULT_FIRST_BUCKET_BYTES);
        assertEquals(List.of(List.of(4, 3), List.of(2, 1, 0)), b);
    }

    @Test
    void dtypesFillSeparateBucketsAndSparseParametersStandAlone() {
        List<BucketAssignment.Entry> e = List.of(
                new BucketAssignment.Entry(30, DType.FLOAT32, false),     // 0
                new BucketAssignment.Entry(30, DType.FLOAT64, false),     // 1
                new BucketAssignment.Entry(8, DType.FLOAT32, true),       // 2 sparse
                new BucketAssignment.Entry(30, DType.FLOAT32, false),     // 3
                new BucketAssignment.Entry(30, DType.FLOAT64, false));    // 4
        List<List<Integer>> b = BucketAssignment.assign(e, 1000, 50);
        // float64 bucket {4, 1} closes at 60 >= 50; float32 {3, 0} closes at 60; sparse {2} alone
        assertEquals(List.of(List.of(4, 1), List.of(3, 0), List.of(2)), b);
    }

    private static List<BucketAssignment.Entry> staged(long bytes, int... stages) {
        List<BucketAssignment.Entry> e = new ArrayList<>();
        for (int s : stages) {
            e.add(new BucketAssignment.Entry(bytes, DType.FLOAT32, false, s));
        }
        return e;
    }

    @Test
    void aBucketEndsWithItsStageOnceItHoldsTheFirstBucketsSize() {
        // by size alone (see reverseOrderSmallFirstBucketThenCap): {5, 4}, {3, 2, 1}, {0}; with stages (2, 2 | 1, 1 | 0, 0)
        // {5, 4} closes by size, stage 1's {3, 2} (80 B, below the cap) ends with stage 1 instead of taking 1, and stage 0 is {1, 0}
        assertEquals(List.of(List.of(5, 4), List.of(3, 2), List.of(1, 0)),
                BucketAssignment.assign(staged(40, 0, 0, 1, 1, 2, 2), 100, 50));
        // a stage's bucket that reaches the first bucket's size ends with its stage, below the cap
        assertEquals(List.of(List.of(5), List.of(4, 3), List.of(2, 1, 0)),
                BucketAssignment.assign(staged(40, 0, 0, 0, 1, 1, 2), 1000, 40));
        // many tiny stages still travel in buckets of at least the first bucket's size
        assertEquals(List.of(List.of(5, 4), List.of(3, 2), List.of(1, 0)),
                BucketAssignment.assign(staged(40, 0, 1, 2, 3, 4, 5), 1000, 80));
        // one stage: DDP's assignment
        assertEquals(BucketAssignment.assign(floats(40, 40, 40, 40, 40, 40), 100, 50),
                BucketAssignment.assign(staged(40, 0, 0, 0, 0, 0, 0), 100, 50));
    }

    @Test
    void rejectsNonPositiveLimits() {
        assertThrows(IllegalArgumentException.class, () -> BucketAssignment.assign(floats(4), 0, 10));
        assertThrows(IllegalArgumentException.class, () -> BucketAssignment.assign(floats(4), 10, -1));
    }
}
