package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Assigns parameters to gradient buckets by size, as DDP's {@code compute_bucket_assignment_by_size}:
 * parameters are taken in <em>reverse</em> registration order (the order their gradients become
 * ready in a backward pass), each dtype fills its own open bucket, and a bucket closes as soon as it
 * holds at least its size limit (so it may overshoot by its last parameter). The first bucket of each
 * dtype uses {@code firstBucketBytes} (small, so communication starts early), later ones
 * {@code bucketCapBytes}. A sparse parameter gets a bucket of its own. Buckets are numbered in the
 * order of their first parameter, so bucket 0 holds the last-registered parameters.
 *
 * <p>Stages (this library's addition, for a backward pass run stage by stage): a bucket that holds at
 * least {@code firstBucketBytes} closes where its stage ends, also below its size limit, so that it
 * leaves as soon as its own stage's gradients are final rather than wait for the next stage's. A
 * smaller one goes on into the next stage: a collective that small gains less by leaving early than
 * it costs, and a model of many tiny stages still travels in buckets of at least that size. Every
 * parameter in one stage (the default) gives DDP's assignment.
 */
public final class BucketAssignment {

    /** DDP's default bucket size limit, 25 MiB. */
    public static final long DEFAULT_BUCKET_CAP_BYTES = 25L << 20;
    /** DDP's default first bucket limit, 1 MiB. */
    public static final long DEFAULT_FIRST_BUCKET_BYTES = 1L << 20;

    private BucketAssignment() {
    }

    /**
     * One parameter as the assignment sees it.
     *
     * @param bytes  its size in bytes
     * @param dtype  its element type (buckets hold one dtype)
     * @param sparse whether its gradient is sparse (sparse parameters get a bucket of their own)
     * @param stage  the stage of the backward pass that makes its gradient final (a bucket of at
     *               least the first bucket's size ends with its stage)
     */
    public record Entry(long bytes, DType dtype, boolean sparse, int stage) {

        /**
         * A parameter of the one stage of an ordinary backward pass.
         *
         * @param bytes  its size in bytes
         * @param dtype  its element type
         * @param sparse whether its gradient is sparse
         */
        public Entry(long bytes, DType dtype, boolean sparse) {
            this(bytes, dtype, sparse, 0);
        }
    }

    /**
     * Assigns parameters to buckets as DDP does.
     *
     * @param entries          the parameters in registration order
     * @param bucketCapBytes   the limit of every bucket after the first of a dtype
     * @param firstBucketBytes the limit of the first bucket of each dtype
     * @return for each bucket, in launch order, the registration indices of its parameters in layout order
     */
    public static List<List<Integer>> assign(List<Entry> entries, long bucketCapBytes, long firstBucketBytes) {
        if (bucketCapBytes <= 0 || firstBucketBytes <= 0) {
            throw new IllegalArgumentException("bucket size limits must be > 0, got " + firstBucketBytes + " and " + bucketCapBytes);
        }
        List<List<Integer>> result = new ArrayList<>();
        Map<DType, List<Integer>> open = new LinkedHashMap<>();
        Map<DType, Long> openBytes = new LinkedHashMap<>();
        Map<DType, Boolean> hadFirst = new LinkedHashMap<>();
        for (int i = entries.size() - 1; i >= 0; i--) {
            Entry e = entries.get(i);
            if (e.sparse()) {
                result.add(List.of(i));
                continue;
            }
            List<Integer> opened = open.get(e.dtype());
            if (opened != null && entries.get(opened.get(opened.size() - 1)).stage() != e.stage()
                    && openBytes.get(e.dtype()) >= firstBucketBytes) {
                // the open bucket's stage ends here: it leaves with that stage, not with this one
                result.add(List.copyOf(open.remove(e.dtype())));
                openBytes.remove(e.dtype());
                hadFirst.put(e.dtype(), true);
            }
            List<Integer> bucket = open.computeIfAbsent(e.dtype(), d -> new ArrayList<>());
            bucket.add(i);
            long bytes = openBytes.merge(e.dtype(), e.bytes(), Long::sum);
            long limit = hadFirst.getOrDefault(e.dtype(), false) ? bucketCapBytes : firstBucketBytes;
            if (bytes >= limit) {
                result.add(List.copyOf(bucket));
                open.remove(e.dtype());
                openBytes.remove(e.dtype());
                hadFirst.put(e.dtype(), true);
            }
        }
        for (List<Integer> bucket : open.values()) {
            result.add(List.copyOf(bucket));
        }
        // Launch order: by the position of each bucket's first parameter in the reversed order.
        result.sort((a, b) -> Integer.compare(b.get(0), a.get(0)));
        return Collections.unmodifiableList(result);
    }
}
