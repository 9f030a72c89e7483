package io.reactivecollectives.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static io.reactivecollectives.core.CollectiveArguments.requireLike;
import static io.reactivecollectives.core.CollectiveArguments.requireList;
import static io.reactivecollectives.core.CollectiveArguments.requireNonEmpty;
import static io.reactivecollectives.core.CollectiveArguments.requireRoot;
import static io.reactivecollectives.core.CollectiveArguments.requireSameDtype;
import static io.reactivecollectives.core.CollectiveArguments.requireTensor;

/**
 * The gather-family checks behind {@link CollectiveArguments#allGather}, {@link CollectiveArguments#allGatherInto},
 * {@link CollectiveArguments#allGatherCoalesced}, {@link CollectiveArguments#gather} and {@link CollectiveArguments#scatter}.
 */
final class GatherArguments {

    private GatherArguments() {
    }

    static void allGather(List<Tensor> outputs, Tensor input, int worldSize) {
        String op = "allGather";
        requireTensor(op, input, "input");
        requireList(op, outputs, worldSize, "outputs");
        for (int i = 0; i < outputs.size(); i++) {
            requireLike(op, outputs.get(i), input, "outputs[" + i + "]");
        }
        requireOutputsApart(op, outputs, i -> "outputs[" + i + "]");
    }

    static void allGatherInto(Tensor output, Tensor input, int worldSize) {
        String op = "allGatherInto";
        requireTensor(op, input, "input");
        requireTensor(op, output, "output");
        requireSameDtype(op, output, input.dtype(), "output");
        if (output.numel() != input.numel() * worldSize) {
            throw new IllegalArgumentException(op + ": output tensor size must be equal to world size times input"
                    + " tensor size (expected " + worldSize + " x " + input.numel() + " = " + input.numel() * worldSize
                    + " elements, got " + output.numel() + ")");
        }
    }

    static void allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs, int worldSize) {
        String op = "allGatherCoalesced";
        requireNonEmpty(op, inputs, "inputs");
        if (outputs == null || outputs.size() != inputs.size()) {
            throw new IllegalArgumentException(op + ": outputs has " + (outputs == null ? "no" : outputs.size())
                    + " lists, expected one per input (" + inputs.size() + ")");
        }
        DType dtype = inputs.get(0).dtype();
        for (int i = 0; i < inputs.size(); i++) {
            requireSameDtype(op, inputs.get(i), dtype, "inputs[" + i + "]");
            requireList(op, outputs.get(i), worldSize, "outputs[" + i + "]");
            for (int r = 0; r < worldSize; r++) {
                requireLike(op, outputs.get(i).get(r), inputs.get(i), "outputs[" + i + "][" + r + "]");
            }
        }
        List<Tensor> all = outputs.stream().flatMap(List::stream).toList();
        requireOutputsApart(op, all, k -> "outputs[" + k / worldSize + "][" + k % worldSize + "]");
    }

    static void gather(List<Tensor> outputs, Tensor input, int root, int rank, int worldSize) {
        String op = "gather";
        requireRoot(op, root, worldSize);
        requireTensor(op, input, "input");
        if (rank == root) {
            requireList(op, outputs, worldSize, "outputs");
            for (int i = 0; i < outputs.size(); i++) {
                requireLike(op, outputs.get(i), input, "outputs[" + i + "]");
            }
            requireOutputsApart(op, outputs, i -> "outputs[" + i + "]");
        } else if (outputs != null && !outputs.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires an empty output list on non-root rank " + rank
                    + " (root is " + root + ")");
        }
    }

    static void scatter(Tensor output, List<Tensor> inputs, int root, int rank, int worldSize) {
        String op = "scatter";
        requireRoot(op, root, worldSize);
        requireTensor(op, output, "output");
        if (rank == root) {
            requireList(op, inputs, worldSize, "inputs");
            for (int i = 0; i < inputs.size(); i++) {
                requireLike(op, inputs.get(i), output, "inputs[" + i + "]");
            }
        } else if (inputs != null && !inputs.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires an empty input list on non-root rank " + rank
                    + " (root is " + root + ")");
        }
    }

    /**
     * No two outputs share memory (the same tensor twice, or views that overlap): the ranks' data
     * would land in one place in an order that differs between ranks, so each rank would end with
     * another result. Memory without an address to compare is compared by identity only.
     */
    static void requireOutputsApart(String op, List<Tensor> outputs, IntFunction<String> name) {
        int n = outputs.size();
        if (n < 2) {
            return;
        }
        // on every call, with as many outputs as ranks (times tensors, coalesced): sorted, n log n, not every pair
        long[] from = new long[n];
        long[] to = new long[n];
        List<Integer> addressed = new ArrayList<>(n);
        java.util.IdentityHashMap<Tensor, Integer> seen = new java.util.IdentityHashMap<>();
        for (int i = 0; i < n; i++) {
            Tensor t = outputs.get(i);
            if (t.nbytes() == 0) {
                continue;
            }
            Integer same = seen.putIfAbsent(t, i);
            if (same != null) {
                throw shared(op, name, same, i);
            }
            try {
                if (t.isCpu()) {
                    from[i] = t.address();
                    to[i] = from[i] + t.nbytes();
                    addressed.add(i);
                }
            } catch (UnsupportedOperationException | IllegalStateException e) {
                // no address to compare (heap memory): by identity only
            }
        }
        addressed.sort((x, y) -> from[x] != from[y] ? Long.compare(from[x], from[y]) : Integer.compare(x, y));
        int reach = -1;   // of the ranges so far, the one that ends last
        for (int k : addressed) {
            if (reach >= 0 && from[k] < to[reach]) {
                throw shared(op, name, Math.min(reach, k), Math.max(reach, k));
            }
            if (reach < 0 || to[k] > to[reach]) {
                reach = k;
            }
        }
    }

    private static IllegalArgumentException shared(String op, IntFunction<String> name, int i, int j) {
        return new IllegalArgumentException(op + ": " + name.apply(i) + " and " + name.apply(j)
                + " share memory; each output needs memory of its own");
    }
}
