package io.reactivecollectives.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The argument checks ProcessGroupGloo makes before a collective, shared by every
 * {@link ProcessGroup}: each check throws an {@link IllegalArgumentException} whose message starts
 * with the op's name ({@code allGather: outputs has 3 tensors, expected one per rank (world size 4)}),
 * so a group calls them at subscription, before anything is sent.
 *
 * <p>The op-level checks ({@link #allGather}, {@link #scatter}, ...) check everything an op needs on
 * this rank; the small ones ({@link #requireRoot}, {@link #requireSameDtype}, ...) are for other ops.
 * Device placement is not checked here (a CPU group calls {@link #requireCpu} itself), nor is
 * consistency across ranks, which only the collective itself can see.
 */
public final class CollectiveArguments {

    private CollectiveArguments() {
    }

    // ------------------------------------------------------------------ small checks

    /**
     * A tensor is present and not released.
     *
     * @param op   the operation's name, which starts the error message
     * @param t    the tensor checked
     * @param what the argument's name in the message
     * @return {@code t}
     */
    public static Tensor requireTensor(String op, Tensor t, String what) {
        if (t == null) {
            throw new IllegalArgumentException(op + ": " + what + " is null");
        }
        if (t.refCnt() == 0) {
            throw new IllegalArgumentException(op + ": " + what + " was already released");
        }
        return t;
    }

    /**
     * A tensor lives in host memory.
     *
     * @param op   the operation's name, which starts the error message
     * @param t    the tensor checked
     * @param what the argument's name in the message
     */
    public static void requireCpu(String op, Tensor t, String what) {
        requireTensor(op, t, what);
        if (!t.isCpu()) {
            throw new IllegalArgumentException(op + ": " + what + " must be a CPU tensor, got one on " + t.device());
        }
    }

    /**
     * A CPU tensor the collective writes into is not read-only (a tensor over a read-only buffer,
     * see {@link Tensors#wrap(java.nio.Buffer, DType, long...)}).
     *
     * @param op   the operation's name, which starts the error message
     * @param t    the tensor the operation writes into
     * @param what what the tensor is to the operation ("tensor", "output", ...), for the message
     * @throws IllegalArgumentException if {@code t} wraps a read-only buffer
     */
    public static void requireWritable(String op, Tensor t, String what) {
        if (t.isCpu() && t.buffer().isReadOnly()) {
            throw new IllegalArgumentException(op + ": " + what + " is read-only (it wraps a read-only buffer) but "
                    + op + " writes its result into it");
        }
    }

    /**
     * {@code root} is a rank of a group of {@code worldSize}.
     *
     * @param op        the operation's name, which starts the error message
     * @param root      the root rank
     * @param worldSize the group's size
     */
    public static void requireRoot(String op, int root, int worldSize) {
        if (root < 0 || root >= worldSize) {
            throw new IllegalArgumentException(op + ": invalid root rank " + root + " for world size " + worldSize);
        }
    }

    /**
     * {@code peer} is a rank of the group.
     *
     * @param op        the operation's name, which starts the error message
     * @param peer      the peer rank
     * @param worldSize the group's size
     * @param what      the argument's name in the message
     */
    public static void requirePeer(String op, int peer, int worldSize, String what) {
        if (peer < 0 || peer >= worldSize) {
            throw new IllegalArgumentException(op + ": invalid " + what + " rank " + peer + " for world size " + worldSize);
        }
    }

    /**
     * {@code r} is a rank of the group, worded for its role ({@code broadcast: root 2 is not a rank of a group of 2}).
     *
     * @param op        the operation's name, which starts the error message
     * @param what      the rank's role in the message ({@code root})
     * @param r         the rank checked
     * @param worldSize the group's size
     */
    public static void requireRank(String op, String what, int r, int worldSize) {
        if (r < 0 || r >= worldSize) {
            throw new IllegalArgumentException(op + ": " + what + " " + r + " is not a rank of a group of " + worldSize);
        }
    }

    /**
     * {@code peer} is a rank of the group other than this {@code rank} ({@code send: rank 0 cannot send to itself}).
     *
     * @param op        the operation's name, which starts the error message
     * @param what      the peer's role in the message ({@code dst})
     * @param peer      the peer rank
     * @param rank      the calling rank
     * @param worldSize the group's size
     */
    public static void requireOtherRank(String op, String what, int peer, int rank, int worldSize) {
        requireRank(op, what, peer, worldSize);
        if (peer == rank) {
            throw new IllegalArgumentException(op + ": rank " + rank + " cannot " + op + " to itself");
        }
    }

    /**
     * {@code t} is on the CPU exactly when {@code like} is (a list of tensors not split between host and device).
     *
     * @param op   the operation's name, which starts the error message
     * @param t    the tensor checked
     * @param like the tensor {@code t} must match
     * @param what the argument's name in the message
     */
    public static void requireSamePlacement(String op, Tensor t, Tensor like, String what) {
        if (t.isCpu() != like.isCpu()) {
            throw new IllegalArgumentException(op + ": " + what + " must all be on the CPU or all on devices, got "
                    + like.device() + " and " + t.device());
        }
    }

    /**
     * A stream's prefetch (chunks in flight) is at least one.
     *
     * @param op       the operation's name, which starts the error message
     * @param prefetch the prefetch
     */
    public static void requirePrefetch(String op, int prefetch) {
        if (prefetch < 1) {
            throw new IllegalArgumentException(op + ": prefetch must be >= 1, got " + prefetch);
        }
    }

    /**
     * A list is present and holds exactly {@code expected} non-null, unreleased tensors.
     *
     * @param op       the operation's name, which starts the error message
     * @param list     the list checked
     * @param expected the number of tensors it must hold
     * @param what     the argument's name in the message
     */
    public static void requireList(String op, List<Tensor> list, int expected, String what) {
        if (list == null) {
            throw new IllegalArgumentException(op + ": " + what + " is null");
        }
        if (list.size() != expected) {
            throw new IllegalArgumentException(op + ": " + what + " has " + list.size()
                    + " tensors, expected one per rank (world size " + expected + ")");
        }
        for (int i = 0; i < list.size(); i++) {
            requireTensor(op, list.get(i), what + "[" + i + "]");
        }
    }

    /**
     * A list is present and not empty, with non-null, unreleased tensors.
     *
     * @param op   the operation's name, which starts the error message
     * @param list the list checked
     * @param what the argument's name in the message
     */
    public static void requireNonEmpty(String op, List<Tensor> list, String what) {
        if (list == null || list.isEmpty()) {
            throw new IllegalArgumentException(op + ": requires a non-empty list of " + what);
        }
        for (int i = 0; i < list.size(); i++) {
            requireTensor(op, list.get(i), what + "[" + i + "]");
        }
    }

    /**
     * {@code t} has {@code dtype}.
     *
     * @param op    the operation's name, which starts the error message
     * @param t     the tensor checked
     * @param dtype the dtype required
     * @param what  the argument's name in the message
     */
    public static void requireSameDtype(String op, Tensor t, DType dtype, String what) {
        if (t.dtype() != dtype) {
            throw new IllegalArgumentException(op + ": invalid tensor type of " + what + " (expected " + dtype
                    + ", got " + t.dtype() + ")");
        }
    }

    /**
     * {@code t} has {@code shape}.
     *
     * @param op    the operation's name, which starts the error message
     * @param t     the tensor checked
     * @param shape the shape required
     * @param what  the argument's name in the message
     */
    public static void requireSameShape(String op, Tensor t, long[] shape, String what) {
        if (!Arrays.equals(t.shape(), shape)) {
            throw new IllegalArgumentException(op + ": invalid tensor size of " + what + " (expected "
                    + Arrays.toString(shape) + ", got " + Arrays.toString(t.shape()) + ")");
        }
    }

    /**
     * {@code t} has the dtype and shape of {@code like}.
     *
     * @param op   the operation's name, which starts the error message
     * @param t    the tensor checked
     * @param like the tensor {@code t} must match
     * @param what the argument's name in the message
     */
    public static void requireLike(String op, Tensor t, Tensor like, String what) {
        requireSameDtype(op, t, like.dtype(), what);
        requireSameShape(op, t, like.shape(), what);
    }

    /**
     * The reduce op may reduce {@code dtype} (c10d's rules, see {@link ReduceOp}).
     *
     * @param op       the operation's name, which starts the error message
     * @param reduceOp the reduction
     * @param dtype    the dtype required
     */
    public static void requireReduceOp(String op, ReduceOp reduceOp, DType dtype) {
        if (reduceOp == null) {
            throw new IllegalArgumentException(op + ": reduce op is null");
        }
        reduceOp.validate(op, dtype);
    }

    // ------------------------------------------------------------------ op-level checks

    /**
     * {@code allGather(outputs, input)}: one output per rank, each of the input's dtype and shape.
     *
     * @param outputs   the outputs argument
     * @param input     the input argument
     * @param worldSize the group's size
     */
    public static void allGather(List<Tensor> outputs, Tensor input, int worldSize) {
        GatherArguments.allGather(outputs, input, worldSize);
    }

    /**
     * {@code allGatherInto(output, input)}: output of the input's dtype with world size x its elements.
     *
     * @param output    the output argument
     * @param input     the input argument
     * @param worldSize the group's size
     */
    public static void allGatherInto(Tensor output, Tensor input, int worldSize) {
        GatherArguments.allGatherInto(output, input, worldSize);
    }

    /**
     * {@code allGatherCoalesced(outputs, inputs)}: {@code outputs.get(i)} holds one tensor per rank
     * like {@code inputs.get(i)}; all inputs of one dtype.
     *
     * @param outputs   the outputs argument
     * @param inputs    the inputs argument
     * @param worldSize the group's size
     */
    public static void allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs, int worldSize) {
        GatherArguments.allGatherCoalesced(outputs, inputs, worldSize);
    }

    /**
     * {@code gather(outputs, input, root)}: on root one output per rank like the input; elsewhere none.
     *
     * @param outputs   the outputs argument
     * @param input     the input argument
     * @param root      the root rank
     * @param rank      the calling rank
     * @param worldSize the group's size
     */
    public static void gather(List<Tensor> outputs, Tensor input, int root, int rank, int worldSize) {
        GatherArguments.gather(outputs, input, root, rank, worldSize);
    }

    /**
     * {@code scatter(output, inputs, root)}: on root one input per rank like the output; elsewhere none.
     *
     * @param output    the output argument
     * @param inputs    the inputs argument
     * @param root      the root rank
     * @param rank      the calling rank
     * @param worldSize the group's size
     */
    public static void scatter(Tensor output, List<Tensor> inputs, int root, int rank, int worldSize) {
        GatherArguments.scatter(output, inputs, root, rank, worldSize);
    }

    /**
     * {@code reduceScatter(output, inputs, op)}: one input per rank like the output; op valid for the dtype.
     *
     * @param output    the output argument
     * @param inputs    the inputs argument
     * @param reduceOp  the reduction
     * @param worldSize the group's size
     */
    public static void reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp reduceOp, int worldSize) {
        ReduceScatterArguments.reduceScatter(output, inputs, reduceOp, worldSize);
    }

    /**
     * {@code reduceScatterTensor(output, input, op)}: input of world size x output's elements.
     *
     * @param output    the output argument
     * @param input     the input argument
     * @param reduceOp  the reduction
     * @param worldSize the group's size
     */
    public static void reduceScatterTensor(Tensor output, Tensor input, ReduceOp reduceOp, int worldSize) {
        ReduceScatterArguments.reduceScatterTensor(output, input, reduceOp, worldSize);
    }

    /**
     * {@code reduceScatterTensorCoalesced(outputs, inputs, op)}: pairwise as {@link #reduceScatterTensor}.
     *
     * @param outputs   the outputs argument
     * @param inputs    the inputs argument
     * @param reduceOp  the reduction
     * @param worldSize the group's size
     */
    public static void reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp reduceOp,
                                                    int worldSize) {
        ReduceScatterArguments.reduceScatterTensorCoalesced(outputs, inputs, reduceOp, worldSize);
    }

    /**
     * {@code allToAll(outputs, inputs)}: one input and one output per rank, all of one dtype (sizes may differ).
     *
     * @param outputs   the outputs argument
     * @param inputs    the inputs argument
     * @param worldSize the group's size
     */
    public static void allToAll(List<Tensor> outputs, List<Tensor> inputs, int worldSize) {
        AllToAllArguments.allToAll(outputs, inputs, worldSize);
    }

    /**
     * The rows each rank sends and receives in {@code allToAllSingle}, resolved from the split
     * arguments.
     *
     * @param inputRows   rows of dimension 0 sent to each rank
     * @param outputRows  rows of dimension 0 received from each rank
     * @param rowElements elements in one row (product of the dimensions after the first)
     */
    public record AllToAllSplits(long[] inputRows, long[] outputRows, long rowElements) {

        /**
         * Element offset of rank {@code p}'s piece in the input.
         *
         * @param p the rank, in {@code [0, world size)}
         * @return the offset in elements
         */
        public long inputOffset(int p) {
            return offset(inputRows, p) * rowElements;
        }

        /**
         * Element offset of rank {@code p}'s piece in the output.
         *
         * @param p the rank, in {@code [0, world size)}
         * @return the offset in elements
         */
        public long outputOffset(int p) {
            return offset(outputRows, p) * rowElements;
        }

        private static long offset(long[] rows, int p) {
            long o = 0;
            for (int i = 0; i < p; i++) {
                o += rows[i];
            }
            return o;
        }
    }

    /**
     * {@link #allToAll(List, List, int)} as rank {@code rank} calls it: also, what it sends itself
     * ({@code inputs[rank]}) has the size it expects from itself ({@code outputs[rank]}).
     *
     * @param outputs   the outputs argument
     * @param inputs    the inputs argument
     * @param rank      the calling rank
     * @param worldSize the group's size
     */
    public static void allToAll(List<Tensor> outputs, List<Tensor> inputs, int rank, int worldSize) {
        AllToAllArguments.allToAll(outputs, inputs, rank, worldSize);
    }

    /**
     * {@link #allToAllSingle(Tensor, Tensor, long[], long[], int)} as rank {@code rank} calls it:
     * also, the rows it sends itself (input split {@code rank}) are the rows it expects from itself.
     *
     * @param output       the output argument
     * @param input        the input argument
     * @param outputSplits rows received from each rank (empty or null: equal splits)
     * @param inputSplits  rows sent to each rank (empty or null: equal splits)
     * @param rank         the calling rank
     * @param worldSize    the group's size
     * @return the resolved rows per rank
     */
    public static AllToAllSplits allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits,
                                                int rank, int worldSize) {
        return AllToAllArguments.allToAllSingle(output, input, outputSplits, inputSplits, rank, worldSize);
    }

    /**
     * {@code allToAllSingle(output, input, outputSplits, inputSplits)}: same dtype, same dimensions
     * after the first, splits (rows; empty or null for equal splits) of length world size, non-negative,
     * summing to dimension 0.
     *
     * @param output       the output argument
     * @param input        the input argument
     * @param outputSplits rows received from each rank (empty or null: equal splits)
     * @param inputSplits  rows sent to each rank (empty or null: equal splits)
     * @param worldSize    the group's size
     * @return the resolved rows per rank
     */
    public static AllToAllSplits allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits,
                                                int worldSize) {
        return AllToAllArguments.allToAllSingle(output, input, outputSplits, inputSplits, worldSize);
    }

    /**
     * {@code batchSendRecv(ops)}: non-empty, every peer another rank of the group, tensors present.
     *
     * @param ops       the sends and receives
     * @param rank      the calling rank
     * @param worldSize the group's size
     */
    public static void batchSendRecv(List<P2POp> ops, int rank, int worldSize) {
        PointToPointArguments.batchSendRecv(ops, rank, worldSize);
    }

    /**
     * {@code monitoredBarrier(timeout, ...)}: a positive timeout.
     *
     * @param timeout the timeout
     */
    public static void monitoredBarrier(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("monitoredBarrier: timeout must be positive, got " + timeout);
        }
    }

    /**
     * {@code newGroup(ranks)}: a non-empty list of distinct ranks of the group; emits them sorted
     * (a rank's index in the sorted list is its rank in the new group, as c10d's new_group).
     *
     * @param ranks     the ranks of the new group
     * @param worldSize the group's size
     * @return the ranks, sorted
     */
    public static int[] newGroup(List<Integer> ranks, int worldSize) {
        return GroupArguments.newGroup(ranks, worldSize);
    }

    /**
     * {@code split(partition)}: non-empty, disjoint lists of ranks in range (each checked as
     * {@link #newGroup}); a rank may be in no list.
     *
     * @param partition the lists of ranks, one per subgroup
     * @param worldSize the group's size
     */
    public static void split(List<List<Integer>> partition, int worldSize) {
        GroupArguments.split(partition, worldSize);
    }

    /**
     * {@code allReduceSparse(tensor, op)}: SUM only (as gloo), on a present, unreleased sparse tensor.
     *
     * @param tensor   the sparse tensor
     * @param reduceOp the reduction
     */
    public static void allReduceSparse(SparseTensor tensor, ReduceOp reduceOp) {
        String op = "allReduceSparse";
        if (tensor == null) {
            throw new IllegalArgumentException(op + ": tensor is null");
        }
        if (tensor.refCnt() == 0) {
            throw new IllegalArgumentException(op + ": tensor was already released");
        }
        if (reduceOp == null || reduceOp.kind() != ReduceOp.Kind.SUM) {
            throw new IllegalArgumentException(op + ": only ReduceOp.SUM is supported for sparse tensors (as gloo), got "
                    + reduceOp);
        }
    }
}
