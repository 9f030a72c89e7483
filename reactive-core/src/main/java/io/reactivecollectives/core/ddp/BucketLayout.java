package io.reactivecollectives.core.ddp;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.Tensor;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Where each parameter's gradient goes in a {@link GradientReducer}: the parameters checked (unique
 * names, floating-point gradients, known sparse names), their buckets ({@link BucketAssignment}),
 * each parameter's bucket and offset in it, and the flat buffer of every dense bucket.
 */
final class BucketLayout {

    final Map<Parameter, Integer> indexOf = new HashMap<>();
    final boolean[] sparse;
    final List<List<Integer>> assignment;
    final int[] bucketOf;
    final long[] offsetInBucket;
    final GradBucket[] denseBuckets;

    BucketLayout(List<Parameter> parameters, Set<String> sparseNames, ToIntFunction<Parameter> stageOf, long bucketCapBytes,
                 long firstBucketBytes) {
        sparse = new boolean[parameters.size()];
        List<BucketAssignment.Entry> entries = new ArrayList<>();
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < parameters.size(); i++) {
            Parameter p = parameters.get(i);
            if (names.put(p.name(), i) != null) {
                throw new IllegalArgumentException("GradientReducer: parameter name '" + p.name() + "' registered twice");
            }
            if (indexOf.put(p, i) != null) {
                throw new IllegalArgumentException("GradientReducer: parameter '" + p.name() + "' registered twice");
            }
            if (!p.grad().dtype().isFloatingPoint()) {
                throw new IllegalArgumentException("GradientReducer: parameter '" + p.name() + "' is " + p.grad().dtype()
                        + "; gradients must be floating point");
            }
            sparse[i] = sparseNames.contains(p.name());
            entries.add(new BucketAssignment.Entry(p.nbytes(), p.grad().dtype(), sparse[i], stageOf.applyAsInt(p)));
        }
        if (!names.keySet().containsAll(sparseNames)) {
            throw new IllegalArgumentException("GradientReducer: sparse parameter names " + sparseNames + " not all registered");
        }
        assignment = BucketAssignment.assign(entries, bucketCapBytes, firstBucketBytes);
        bucketOf = new int[parameters.size()];
        offsetInBucket = new long[parameters.size()];
        denseBuckets = new GradBucket[assignment.size()];
        for (int k = 0; k < assignment.size(); k++) {
            long off = 0;
            List<Parameter> ps = new ArrayList<>();
            DType dtype = null;
            for (int i : assignment.get(k)) {
                bucketOf[i] = k;
                offsetInBucket[i] = off;
                off += parameters.get(i).numel();
                ps.add(parameters.get(i));
                dtype = parameters.get(i).grad().dtype();
            }
            if (!sparse[assignment.get(k).get(0)]) {
                denseBuckets[k] = new GradBucket(k, assignment.size(), Tensor.zeros(dtype, off), ps);
            }
        }
    }

    /** Whether {@code p} is registered, and registered sparse. */
    boolean isSparse(Parameter p) {
        Integer i = indexOf.get(p);
        return i != null && sparse[i];
    }
}
