package io.reactivecollectives.core;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;

/**
 * A group of ranks that run collectives together, as c10d's {@code ProcessGroup}.
 *
 * <p>Every collective is a cold {@link Mono}: building it does nothing; each subscription runs the
 * collective once, taking the group's next sequence number. All ranks must subscribe to their
 * collectives in the same order (as in c10d); several may be in flight at once. Arguments are
 * checked at subscription and a bad call fails with an {@link IllegalArgumentException} naming the
 * op, with nothing sent. A failure on any rank (timeout, peer gone, mismatch, abort) reaches
 * every rank as an {@code onError} carrying a {@link CollectiveException}. Cancelling a subscription
 * aborts that collective on every rank.
 *
 * <p>Tensors passed in are owned by the collective until its {@code Mono} completes; results are
 * written in place, and the {@code Mono} emits the tensor(s) it wrote. The group never releases the
 * caller's tensors.
 */
public interface ProcessGroup extends AutoCloseable {

    /** {@return this process's rank in the group, in {@code [0, size())}} */
    int rank();

    /** {@return the number of ranks in the group} */
    int size();

    /** {@return the group's name, unique within its store} */
    String groupId();

    // ------------------------------------------------------------------ reductions

    /**
     * Reduces {@code tensor} across all ranks with {@code op}, in place on every rank.
     *
     * @param tensor this rank's contribution, overwritten with the result
     * @param op     the reduction
     * @return a cold {@code Mono} emitting {@code tensor} once it holds the reduction
     */
    default Mono<Tensor> allReduce(Tensor tensor, ReduceOp op) {
        return allReduce(tensor, op, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allReduce(Tensor, ReduceOp)} with per-call options.
     *
     * @param tensor  this rank's contribution, overwritten with the result
     * @param op      the reduction
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code tensor} once it holds the reduction
     */
    Mono<Tensor> allReduce(Tensor tensor, ReduceOp op, CollectiveOptions options);

    /**
     * All-reduces several tensors as one collective (flattened together); emits them in order.
     *
     * @param tensors this rank's contributions, each overwritten with its result
     * @param op      the reduction
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code tensors} once they hold the reductions
     */
    Mono<List<Tensor>> allReduceCoalesced(List<Tensor> tensors, ReduceOp op, CollectiveOptions options);

    /**
     * Reduces {@code tensor} across all ranks into {@code root}'s tensor ({@code torch.distributed.reduce});
     * other ranks' tensors are unspecified after. {@link #reduce(Tensor, int, ReduceOp, CollectiveOptions)}
     * with the default options.
     *
     * @param tensor this rank's contribution; on {@code root} overwritten with the result
     * @param root   the root rank, in {@code [0, size())}
     * @param op     the reduction
     * @return a cold {@code Mono} emitting {@code tensor} once this rank's part is done
     */
    default Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op) {
        return reduce(tensor, root, op, CollectiveOptions.DEFAULT);
    }

    /**
     * Reduces {@code tensor} across all ranks into {@code root}'s tensor; other ranks' tensors are unspecified after.
     *
     * @param tensor  this rank's contribution; on {@code root} overwritten with the result
     * @param root    the root rank, in {@code [0, size())}
     * @param op      the reduction
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code tensor} once this rank's part is done
     */
    Mono<Tensor> reduce(Tensor tensor, int root, ReduceOp op, CollectiveOptions options);

    /**
     * Streams an all-reduce: each chunk from {@code chunks} is all-reduced with the chunk of the same
     * index on every rank, and emitted (reduced in place) downstream in order. Demand from
     * downstream is honoured and at most {@code prefetch} chunks are in flight, whatever the
     * stream's length. All ranks must emit chunks of the same sizes and dtypes in the same order,
     * and as many: a stream that ends after fewer chunks on one rank (or a chunk whose size or
     * dtype differs) fails on every rank with a {@link CollectiveMismatchException}; the stream's
     * end costs one all-reduce of 8 bytes after its last chunk.
     *
     * @param chunks   this rank's chunks, in index order
     * @param op       the reduction
     * @param prefetch the most chunks in flight at once
     * @return a {@code Flux} of the reduced chunks, in order
     */
    Flux<Chunk> allReduceStream(Flux<Chunk> chunks, ReduceOp op, int prefetch);

    // ------------------------------------------------------------------ data movement

    /**
     * Copies {@code root}'s tensor into every rank's tensor.
     *
     * @param tensor on {@code root} the data to send; elsewhere overwritten with it
     * @param root   the root rank, in {@code [0, size())}
     * @return a cold {@code Mono} emitting {@code tensor} once it holds the root's data
     */
    default Mono<Tensor> broadcast(Tensor tensor, int root) {
        return broadcast(tensor, root, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #broadcast(Tensor, int)} with per-call options.
     *
     * @param tensor  on {@code root} the data to send; elsewhere overwritten with it
     * @param root    the root rank, in {@code [0, size())}
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code tensor} once it holds the root's data
     */
    Mono<Tensor> broadcast(Tensor tensor, int root, CollectiveOptions options);

    /**
     * Completes on every rank once all ranks have entered the barrier.
     *
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} completing once every rank has entered the barrier
     */
    Mono<Void> barrier(CollectiveOptions options);

    /**
     * {@link #barrier(CollectiveOptions)} with the default options.
     *
     * @return a cold {@code Mono} completing once every rank has entered the barrier
     */
    default Mono<Void> barrier() {
        return barrier(CollectiveOptions.DEFAULT);
    }

    /**
     * Sends {@code tensor} to rank {@code dst}; matched by the receive with the same tag there.
     *
     * @param tensor the data to send (only read)
     * @param dst    the destination rank
     * @param tag    the tag that matches a send with its receive
     * @return a cold {@code Mono} completing once the tensor has been sent
     */
    Mono<Void> send(Tensor tensor, int dst, int tag);

    /**
     * {@link #send} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param tensor  the data to send (only read)
     * @param dst     the destination rank
     * @param tag     the tag that matches a send with its receive
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} completing once the tensor has been sent
     */
    default Mono<Void> send(Tensor tensor, int dst, int tag, CollectiveOptions options) {
        if (options == null) {
            return Mono.error(new IllegalArgumentException("send: options is null"));
        }
        return CollectiveOptions.DEFAULT.equals(options) ? send(tensor, dst, tag)
                : Mono.error(new UnsupportedOperationException("send with options " + options));
    }

    /**
     * Receives into {@code tensor} from rank {@code src} the send with the same tag.
     *
     * @param tensor overwritten with the data received
     * @param src    the source rank
     * @param tag    the tag that matches a send with its receive
     * @return a cold {@code Mono} emitting {@code tensor} once it holds the data
     */
    Mono<Tensor> recv(Tensor tensor, int src, int tag);

    /**
     * {@link #recv} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param tensor  overwritten with the data received
     * @param src     the source rank
     * @param tag     the tag that matches a send with its receive
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code tensor} once it holds the data
     */
    default Mono<Tensor> recv(Tensor tensor, int src, int tag, CollectiveOptions options) {
        if (options == null) {
            return Mono.error(new IllegalArgumentException("recv: options is null"));
        }
        return CollectiveOptions.DEFAULT.equals(options) ? recv(tensor, src, tag)
                : Mono.error(new UnsupportedOperationException("recv with options " + options));
    }

    /**
     * Receives into {@code tensor} from whichever rank sends with {@code tag} first; emits the source rank.
     *
     * @param tensor overwritten with the data received
     * @param tag    the tag that matches a send with its receive
     * @return a cold {@code Mono} emitting the rank the data came from
     */
    Mono<Integer> recvAnySource(Tensor tensor, int tag);

    /**
     * {@link #recvAnySource} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param tensor  overwritten with the data received
     * @param tag     the tag that matches a send with its receive
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting the rank the data came from
     */
    default Mono<Integer> recvAnySource(Tensor tensor, int tag, CollectiveOptions options) {
        if (options == null) {
            return Mono.error(new IllegalArgumentException("recvAnySource: options is null"));
        }
        return CollectiveOptions.DEFAULT.equals(options) ? recvAnySource(tensor, tag)
                : Mono.error(new UnsupportedOperationException("recvAnySource with options " + options));
    }

    // ------------------------------------------------------------------ the full set (issue: full collective set)

    /**
     * Gathers every rank's {@code input} into {@code outputs} (one per rank) on every rank.
     *
     * @param outputs one tensor per rank, in rank order, overwritten with that rank's {@code input}
     * @param input   this rank's contribution (only read)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input) {
        return allGather(outputs, input, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allGather} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param outputs one tensor per rank, in rank order, overwritten with that rank's {@code input}
     * @param input   this rank's contribution (only read)
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<Tensor>> allGather(List<Tensor> outputs, Tensor input, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("allGather"));
    }

    /**
     * Gathers every rank's {@code input} into the flat {@code output} (size x world) on every rank.
     *
     * @param output a tensor of world size times {@code input}'s elements, overwritten with every rank's input in rank order
     * @param input  this rank's contribution (only read)
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> allGatherInto(Tensor output, Tensor input) {
        return allGatherInto(output, input, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allGatherInto} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param output  a tensor of world size times {@code input}'s elements, overwritten with every rank's input in rank order
     * @param input   this rank's contribution (only read)
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> allGatherInto(Tensor output, Tensor input, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("allGatherInto"));
    }

    /**
     * All-gathers several tensors as one collective: {@code outputs.get(i)} receives every rank's {@code inputs.get(i)}.
     *
     * @param outputs for each input, one tensor per rank, overwritten with that rank's input
     * @param inputs  this rank's contributions (only read)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs) {
        return allGatherCoalesced(outputs, inputs, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allGatherCoalesced} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param outputs for each input, one tensor per rank, overwritten with that rank's input
     * @param inputs  this rank's contributions (only read)
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<List<Tensor>>> allGatherCoalesced(List<List<Tensor>> outputs, List<Tensor> inputs, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("allGatherCoalesced"));
    }

    /**
     * Gathers every rank's {@code input} into {@code outputs} on {@code root} (other ranks pass an empty list).
     *
     * @param outputs on {@code root} one tensor per rank, overwritten with that rank's input; elsewhere empty
     * @param input   this rank's contribution (only read)
     * @param root    the root rank, in {@code [0, size())}
     * @return a cold {@code Mono} emitting {@code outputs} once this rank's part is done
     */
    default Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root) {
        return gather(outputs, input, root, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #gather} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param outputs on {@code root} one tensor per rank, overwritten with that rank's input; elsewhere empty
     * @param input   this rank's contribution (only read)
     * @param root    the root rank, in {@code [0, size())}
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code outputs} once this rank's part is done
     */
    default Mono<List<Tensor>> gather(List<Tensor> outputs, Tensor input, int root, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("gather"));
    }

    /**
     * Scatters {@code root}'s {@code inputs} (one per rank) into every rank's {@code output}.
     *
     * @param output overwritten with this rank's piece of the root's inputs
     * @param inputs on {@code root} one tensor per rank (only read); elsewhere empty
     * @param root   the root rank, in {@code [0, size())}
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root) {
        return scatter(output, inputs, root, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #scatter} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param output  overwritten with this rank's piece of the root's inputs
     * @param inputs  on {@code root} one tensor per rank (only read); elsewhere empty
     * @param root    the root rank, in {@code [0, size())}
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> scatter(Tensor output, List<Tensor> inputs, int root, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("scatter"));
    }

    /**
     * Reduces {@code inputs} (one per rank) across ranks; rank r receives the reduction of everyone's {@code inputs.get(r)}.
     *
     * @param output overwritten with the reduction of every rank's piece for this rank
     * @param inputs one tensor per rank: the piece destined for that rank (only read)
     * @param op     the reduction
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op) {
        return reduceScatter(output, inputs, op, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #reduceScatter} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param output  overwritten with the reduction of every rank's piece for this rank
     * @param inputs  one tensor per rank: the piece destined for that rank (only read)
     * @param op      the reduction
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> reduceScatter(Tensor output, List<Tensor> inputs, ReduceOp op, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("reduceScatter"));
    }

    /**
     * Reduce-scatter of a flat {@code input} of size world x output size.
     *
     * @param output overwritten with the reduction of every rank's slice {@code rank()} of {@code input}
     * @param input  world size slices of {@code output}'s size, in rank order (only read)
     * @param op     the reduction
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op) {
        return reduceScatterTensor(output, input, op, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #reduceScatterTensor} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param output  overwritten with the reduction of every rank's slice {@code rank()} of {@code input}
     * @param input   world size slices of {@code output}'s size, in rank order (only read)
     * @param op      the reduction
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> reduceScatterTensor(Tensor output, Tensor input, ReduceOp op, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("reduceScatterTensor"));
    }

    /**
     * Several flat reduce-scatters as one collective.
     *
     * @param outputs one output per reduce-scatter, each overwritten with its result
     * @param inputs  one flat input per output, of world size times its size (only read)
     * @param op      the reduction
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op) {
        return reduceScatterTensorCoalesced(outputs, inputs, op, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #reduceScatterTensorCoalesced} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param outputs one output per reduce-scatter, each overwritten with its result
     * @param inputs  one flat input per output, of world size times its size (only read)
     * @param op      the reduction
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<Tensor>> reduceScatterTensorCoalesced(List<Tensor> outputs, List<Tensor> inputs, ReduceOp op, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("reduceScatterTensorCoalesced"));
    }

    /**
     * Rank r sends {@code inputs.get(p)} to rank p and receives rank p's into {@code outputs.get(p)}.
     *
     * @param outputs one tensor per rank, overwritten with what that rank sent here
     * @param inputs  one tensor per rank, sent to that rank (only read)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs) {
        return allToAll(outputs, inputs, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allToAll} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param outputs one tensor per rank, overwritten with what that rank sent here
     * @param inputs  one tensor per rank, sent to that rank (only read)
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code outputs} once they are filled
     */
    default Mono<List<Tensor>> allToAll(List<Tensor> outputs, List<Tensor> inputs, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("allToAll"));
    }

    /**
     * All-to-all over dimension 0 of one input and one output, with split sizes (rows) per rank; an
     * empty split array means equal splits.
     *
     * @param output       overwritten with the rows received, in rank order
     * @param input        the rows to send, in rank order (only read)
     * @param outputSplits rows received from each rank, or empty for equal splits
     * @param inputSplits  rows sent to each rank, or empty for equal splits
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits) {
        return allToAllSingle(output, input, outputSplits, inputSplits, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allToAllSingle} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param output       overwritten with the rows received, in rank order
     * @param input        the rows to send, in rank order (only read)
     * @param outputSplits rows received from each rank, or empty for equal splits
     * @param inputSplits  rows sent to each rank, or empty for equal splits
     * @param options      per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting {@code output} once it is filled
     */
    default Mono<Tensor> allToAllSingle(Tensor output, Tensor input, long[] outputSplits, long[] inputSplits, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("allToAllSingle"));
    }

    /**
     * Issues sends and receives to several peers as one operation, completing when all finish.
     *
     * @param ops the sends and receives
     * @return a cold {@code Mono} completing once every operation has
     */
    default Mono<Void> batchSendRecv(List<P2POp> ops) {
        return Mono.error(new UnsupportedOperationException("batchSendRecv"));
    }

    /**
     * A barrier in which rank 0 collects every rank's arrival; on timeout it fails naming the ranks
     * that did not arrive (the first one, or all of them with {@code waitAllRanks}).
     *
     * @param timeout      how long rank 0 waits for the other ranks
     * @param waitAllRanks whether to wait out the timeout and name every missing rank, rather than fail at the first
     * @return a cold {@code Mono} completing once every rank has arrived
     */
    default Mono<Void> monitoredBarrier(Duration timeout, boolean waitAllRanks) {
        return Mono.error(new UnsupportedOperationException("monitoredBarrier"));
    }

    /**
     * A group over the given ranks of this group, built through the store. Every rank of this group
     * must call it with the same list; a rank outside the list gets an empty {@code Mono}.
     *
     * @param ranks the ranks of this group that form the new one (numbered in ascending order there)
     * @return a cold {@code Mono} emitting the new group, or empty on a rank outside {@code ranks}
     */
    default Mono<ProcessGroup> newGroup(List<Integer> ranks) {
        return Mono.error(new UnsupportedOperationException("newGroup"));
    }

    /**
     * Splits this group into disjoint subgroups (c10d's split_group): one {@link #newGroup} per list,
     * in order, so every rank of this group must call it with the same lists. Emits the subgroup
     * this rank belongs to, or completes empty for a rank in no list. Bad lists (empty, out of
     * range, a rank twice) are an {@link IllegalArgumentException} naming {@code split}, before any
     * subgroup is made.
     *
     * @param partition disjoint lists of ranks of this group, one per subgroup
     * @return a cold {@code Mono} emitting this rank's subgroup, or empty
     */
    default Mono<ProcessGroup> split(List<List<Integer>> partition) {
        return Mono.defer(() -> {
            CollectiveArguments.split(partition, size());
            // every newGroup call runs on every rank (their order numbers the subgroups' store prefixes)
            return Flux.fromIterable(partition)
                    .concatMap(this::newGroup)
                    .collectList()
                    .flatMap(mine -> mine.isEmpty() ? Mono.empty() : Mono.just(mine.get(0)));
        });
    }

    /**
     * Sums a sparse COO tensor across all ranks (c10d's sparse all-reduce): SUM only, as gloo; any
     * other op is an {@link IllegalArgumentException}. Every rank's tensor must have the same dense
     * shape, sparse dimensions and dtype. Emits a new coalesced tensor holding the sum, which the
     * caller releases; {@code tensor} is only read.
     *
     * @param tensor this rank's sparse tensor (only read)
     * @param op     the reduction: {@link ReduceOp#SUM}
     * @return a cold {@code Mono} emitting the sum, a new coalesced tensor owned by the caller
     */
    default Mono<SparseTensor> allReduceSparse(SparseTensor tensor, ReduceOp op) {
        return allReduceSparse(tensor, op, CollectiveOptions.DEFAULT);
    }

    /**
     * {@link #allReduceSparse} with per-call options: a timeout, and a forced algorithm where the
     * implementation has one (an {@link IllegalArgumentException} names what it implements).
     *
     * @param tensor  this rank's sparse tensor (only read)
     * @param op      the reduction: {@link ReduceOp#SUM}
     * @param options per-call options: a timeout, a forced algorithm ({@link CollectiveOptions#DEFAULT} for neither)
     * @return a cold {@code Mono} emitting the sum, a new coalesced tensor owned by the caller
     */
    default Mono<SparseTensor> allReduceSparse(SparseTensor tensor, ReduceOp op, CollectiveOptions options) {
        return Mono.error(new UnsupportedOperationException("allReduceSparse"));
    }

    // ------------------------------------------------------------------ objects

    /**
     * Every rank's object, in rank order, on every rank (c10d's {@code all_gather_object}), encoded
     * with {@code codec} (e.g. {@link Codec#json(Class)}). One round trip for objects up to the
     * first round's share (about 64 KiB divided by the world size); longer ones follow in rounds,
     * so a rank holds each object's bytes once and never a padded copy of all of them. Every rank's
     * own entry is a decoded copy. Fails on every rank, before any object's bytes travel, when the
     * ranks' ops, codec ids or call order differ ({@link CollectiveMismatchException}), when a
     * rank's codec cannot encode its object, or when the objects together exceed
     * {@link ObjectOptions#maxBytes()}; a decode failure names the rank whose bytes failed. Like
     * every collective, object collectives must be called in the same order on every rank; a
     * group runs its object collectives one at a time.
     *
     * @param object this rank's object (null where the codec can encode null)
     * @param codec  how objects become bytes; every rank must use one of the same id
     * @param <T>    the objects' type
     * @return a cold Mono of an unmodifiable list of {@link #size()} objects (null elements where
     *         a rank's object was null)
     */
    default <T> Mono<List<T>> allGatherObject(T object, Codec<T> codec) {
        return allGatherObject(object, codec, ObjectOptions.DEFAULT);
    }

    /**
     * {@link #allGatherObject(Object, Codec)} with limits and collective options.
     *
     * @param object  this rank's object
     * @param codec   how objects become bytes
     * @param options the limit, round size and collective options
     * @param <T>     the objects' type
     * @return a cold Mono of every rank's object in rank order
     */
    default <T> Mono<List<T>> allGatherObject(T object, Codec<T> codec, ObjectOptions options) {
        return ObjectCollectives.call(this, ObjectOp.ALL_GATHER, 0, options, c -> ObjectAllGather.run(c, object, codec));
    }

    /**
     * The root's object on every rank (c10d's {@code broadcast_object_list}, of one object: pass
     * a list to broadcast a list). The root emits the object it passed; the others emit what they
     * decode; a null object completes empty everywhere. One round trip for objects up to the first
     * round's share; errors as {@link #allGatherObject(Object, Codec)}.
     *
     * @param object the object on the root; ignored (may be null) elsewhere
     * @param root   the rank whose object is sent
     * @param codec  how objects become bytes; every rank must use one of the same id
     * @param <T>    the object's type
     * @return a cold Mono of the root's object
     */
    default <T> Mono<T> broadcastObject(T object, int root, Codec<T> codec) {
        return broadcastObject(object, root, codec, ObjectOptions.DEFAULT);
    }

    /**
     * {@link #broadcastObject(Object, int, Codec)} with limits and collective options.
     *
     * @param object  the object on the root
     * @param root    the rank whose object is sent
     * @param codec   how objects become bytes
     * @param options the limit, round size and collective options
     * @param <T>     the object's type
     * @return a cold Mono of the root's object
     */
    default <T> Mono<T> broadcastObject(T object, int root, Codec<T> codec, ObjectOptions options) {
        return ObjectCollectives.call(this, ObjectOp.BROADCAST, root, options, c -> ObjectBroadcast.run(c, object, codec));
    }

    /**
     * Every rank's object, in rank order, on the root (c10d's {@code gather_object}); the other
     * ranks emit an empty list. Errors as {@link #allGatherObject(Object, Codec)}.
     *
     * @param object this rank's object
     * @param root   the rank that receives
     * @param codec  how objects become bytes; every rank must use one of the same id
     * @param <T>    the objects' type
     * @return a cold Mono of an unmodifiable list: every rank's object on the root, empty elsewhere
     */
    default <T> Mono<List<T>> gatherObject(T object, int root, Codec<T> codec) {
        return gatherObject(object, root, codec, ObjectOptions.DEFAULT);
    }

    /**
     * {@link #gatherObject(Object, int, Codec)} with limits and collective options.
     *
     * @param object  this rank's object
     * @param root    the rank that receives
     * @param codec   how objects become bytes
     * @param options the limit, round size and collective options
     * @param <T>     the objects' type
     * @return a cold Mono of every rank's object on the root, an empty list elsewhere
     */
    default <T> Mono<List<T>> gatherObject(T object, int root, Codec<T> codec, ObjectOptions options) {
        return ObjectCollectives.call(this, ObjectOp.GATHER, root, options, c -> ObjectGather.run(c, object, codec));
    }

    /**
     * Object {@code r} of the root's list on rank {@code r} (c10d's {@code scatter_object_list});
     * every rank, the root too, emits a decoded copy, and a null piece completes empty. Two round
     * trips at least (the ranks agree on the call before the root sends its pieces). A root list
     * of the wrong size fails the call on every rank, with nothing of the pieces sent.
     *
     * @param objects the root's {@link #size()} objects; ignored (may be null) elsewhere
     * @param root    the rank that sends
     * @param codec   how objects become bytes; every rank must use one of the same id
     * @param <T>     the objects' type
     * @return a cold Mono of this rank's object
     */
    default <T> Mono<T> scatterObject(List<T> objects, int root, Codec<T> codec) {
        return scatterObject(objects, root, codec, ObjectOptions.DEFAULT);
    }

    /**
     * {@link #scatterObject(List, int, Codec)} with limits and collective options.
     *
     * @param objects the root's objects
     * @param root    the rank that sends
     * @param codec   how objects become bytes
     * @param options the limit, round size and collective options
     * @param <T>     the objects' type
     * @return a cold Mono of this rank's object
     */
    default <T> Mono<T> scatterObject(List<T> objects, int root, Codec<T> codec, ObjectOptions options) {
        return ObjectCollectives.call(this, ObjectOp.SCATTER, root, options, c -> ObjectScatter.run(c, objects, codec));
    }

    /**
     * Every rank's map reduced by key, the same map on every rank: each key of any rank's map,
     * with its values combined in rank order as {@code combine(lower ranks' value, next rank's
     * value)} (ytk-mp4j's map all-reduce; c10d has none). Keys travel in {@code keys}' encoding,
     * and a key's owner is a hash of those bytes, so equal keys must encode to equal bytes on every
     * rank (true of strings, numbers and records). The algorithm is chosen per call from a small
     * first round ({@link KeyedAlgorithm#AUTO}); see {@link KeyedAlgorithm} for what each moves.
     * The result iterates in an order that is the same on every rank. Null keys or values, null
     * arguments, codecs that differ across ranks and entries over {@link ObjectOptions#maxBytes()}
     * fail on every rank; {@code combine} must be a pure function (it runs on any rank).
     *
     * @param map     this rank's entries (not modified)
     * @param combine how two values of one key become one, e.g. {@code Long::sum}
     * @param keys    the keys' codec
     * @param values  the values' codec
     * @param <K>     the keys' type
     * @param <V>     the values' type
     * @return a cold Mono of a new map holding the reduced entries
     */
    default <K, V> Mono<Map<K, V>> allReduceMap(Map<K, V> map, BinaryOperator<V> combine, Codec<K> keys, Codec<V> values) {
        return allReduceMap(map, combine, keys, values, ObjectOptions.DEFAULT);
    }

    /**
     * {@link #allReduceMap(Map, BinaryOperator, Codec, Codec)} with limits, the algorithm and collective options.
     *
     * @param map     this rank's entries
     * @param combine how two values of one key become one
     * @param keys    the keys' codec
     * @param values  the values' codec
     * @param options the limit, algorithm and collective options
     * @param <K>     the keys' type
     * @param <V>     the values' type
     * @return a cold Mono of a new map holding the reduced entries
     */
    default <K, V> Mono<Map<K, V>> allReduceMap(Map<K, V> map, BinaryOperator<V> combine, Codec<K> keys, Codec<V> values,
                                                 ObjectOptions options) {
        return ObjectCollectives.call(this, ObjectOp.KEYED_ALL_REDUCE, 0, options,
                c -> KeyedReduce.run(c, new KeyedMapFormat<>(map, combine, keys, values)));
    }

    /**
     * The primitive-keyed form of {@link #allReduceMap(Map, BinaryOperator, Codec, Codec)}, for
     * sparse features: {@code long} keys, {@code double} values, 16 bytes an entry on the wire,
     * combined with {@link ReduceOp#SUM}, {@link ReduceOp#PRODUCT}, {@link ReduceOp#MIN} or
     * {@link ReduceOp#MAX} in rank order; the same {@link KeyedDoubles} on every rank.
     *
     * @param entries this rank's entries
     * @param op      how values of one key combine
     * @return a cold Mono of the reduced entries
     */
    default Mono<KeyedDoubles> allReduceMap(KeyedDoubles entries, ReduceOp op) {
        return allReduceMap(entries, op, ObjectOptions.DEFAULT);
    }

    /**
     * {@link #allReduceMap(KeyedDoubles, ReduceOp)} with limits, the algorithm and collective options.
     *
     * @param entries this rank's entries
     * @param op      how values of one key combine
     * @param options the limit, algorithm and collective options
     * @return a cold Mono of the reduced entries
     */
    default Mono<KeyedDoubles> allReduceMap(KeyedDoubles entries, ReduceOp op, ObjectOptions options) {
        return ObjectCollectives.call(this, ObjectOp.KEYED_ALL_REDUCE, 0, options,
                c -> KeyedReduce.run(c, new KeyedDoublesFormat(entries, op)));
    }

    // ------------------------------------------------------------------ lifecycle

    /**
     * Aborts the group: every in-flight collective fails at once on this rank with a
     * {@link GroupAbortedException}, the peers are told (their in-flight collectives fail too, with
     * an error naming this rank), and the group refuses new work with a {@link GroupAbortedException}
     * saying it was aborted. The {@code Mono} completes when the peers have been told (or could not
     * be); it is cold and idempotent. Implementations without abort signal
     * {@link UnsupportedOperationException}.
     *
     * @return a cold {@code Mono} completing once the peers have been told
     */
    default Mono<Void> abort() {
        return Mono.error(new UnsupportedOperationException("abort"));
    }

    /**
     * Recovery after a peer failure, without restarting the processes: every surviving rank calls
     * it, and the survivors form a new group (the next generation, met through the same store under
     * a new prefix, so that nothing of the old group is ever read by the new one), renumbered in
     * their old order. This group is closed. Emits the new group; signals an error when this rank is
     * not among the survivors or the survivors cannot agree in time. Implementations without
     * recovery signal {@link UnsupportedOperationException}.
     *
     * @return a cold {@code Mono} emitting this rank's group of the next generation
     */
    default Mono<ProcessGroup> shrink() {
        return Mono.error(new UnsupportedOperationException("shrink"));
    }

    /**
     * The group's membership generations: the one it started as ({@link GenerationEvent.Reason#START},
     * generation 0), then one event per {@link #shrink()} ({@link GenerationEvent.Reason#SHRINK}, with
     * the ranks lost), ranks in the original numbering. Hot and replaying: a subscriber sees every
     * generation so far, then the later ones. Implementations with {@link #shrink()} share the stream
     * across generations (the group a shrink made and the one it closed report the same events).
     * This default reports the single START generation of {@link #size()} ranks and completes.
     *
     * @return the generations, oldest first
     */
    default Flux<GenerationEvent> generations() {
        return Flux.just(GenerationEvent.start(groupId(), size()));
    }

    /** Closes connections and releases resources; in-flight collectives fail. */
    @Override
    void close();
}
