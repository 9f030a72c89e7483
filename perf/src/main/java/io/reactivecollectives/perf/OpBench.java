package io.reactivecollectives.perf;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

/**
 * One benchmarked collective with its tensors, allocated once per size and place, and its
 * correctness check (nccl-tests' {@code -c}): {@link #check()} fills the inputs with values known on
 * every rank, runs the collective once and counts the elements of this rank's result that are not
 * what they should be (the {@code #wrong} column).
 *
 * <p>In place, as nccl-tests: the input is the output's slot of this rank (all_gather, gather at
 * the root) or the output is the input's slot of this rank (reduce_scatter, scatter at the root).
 * all_reduce, broadcast and reduce take one tensor (c10d's form), written in place, and all_to_all
 * cannot write its input in place: both places run the one call there is. {@code -z} 1 adds a barrier after each call,
 * timed; {@code -z} 3 too, but only the call is timed ({@link #takeCallNanos()}).
 */
final class OpBench implements AutoCloseable {

    private final List<Tensor> owned = new ArrayList<>();
    private final Mono<?> call;
    private final Mono<?> run;
    /** Nanoseconds the calls took since the last {@link #takeCallNanos()} ({@code -z 3}); written and read in turn. */
    private long callNanos;
    private final Runnable fill;
    private final java.util.function.LongSupplier verify;

    private OpBench(String op, ProcessGroup g, DType dt, long count, ReduceOp redop, int root, CollectiveOptions options,
                    boolean inPlace, int blocking) {
        int n = g.size();
        int rank = g.rank();
        long piece = count / n;
        List<Runnable> fills = new ArrayList<>();
        java.util.function.LongSupplier check;
        Mono<?> run;
        switch (op) {
            case "all_reduce": {
                Tensor x = alloc(dt, count);
                run = Mono.defer(() -> g.allReduce(x, redop, options));
                fills.add(() -> fill(x, i -> reduced(rank, i)));
                check = () -> wrong(x, 0, i -> expectedReduction(redop, n, i, dt), dt);
                break;
            }
            case "barrier": {
                // no data: the row's bytes are the size swept, the time is one barrier's
                run = Mono.defer(() -> g.barrier(options));
                check = () -> 0;
                break;
            }
            case "broadcast": {
                Tensor x = alloc(dt, count);
                run = Mono.defer(() -> g.broadcast(x, root, options));
                fills.add(() -> fill(x, i -> rank == root ? moved(root, i) : -1));
                check = () -> wrong(x, 0, i -> moved(root, i), dt);
                break;
            }
            case "reduce": {
                Tensor x = alloc(dt, count);
                run = Mono.defer(() -> g.reduce(x, root, redop, options));
                fills.add(() -> fill(x, i -> reduced(rank, i)));
                check = () -> rank != root ? 0 : wrong(x, 0, i -> expectedReduction(redop, n, i, dt), dt);
                break;
            }
            case "all_gather": {
                Tensor out = alloc(dt, piece * n);
                Tensor in = inPlace ? out.narrow(rank * piece, piece) : alloc(dt, piece);
                run = Mono.defer(() -> g.allGatherInto(out, in, options));
                fills.add(() -> fill(in, i -> moved(rank, i)));
                check = () -> wrong(out, 0, i -> moved((int) (i / piece), i % piece), dt);
                break;
            }
            case "reduce_scatter": {
                Tensor in = alloc(dt, piece * n);
                Tensor out = inPlace ? in.narrow(rank * piece, piece) : alloc(dt, piece);
                run = Mono.defer(() -> g.reduceScatterTensor(out, in, redop, options));
                fills.add(() -> fill(in, i -> reduced(rank, i)));
                check = () -> wrong(out, 0, i -> expectedReduction(redop, n, rank * piece + i, dt), dt);
                break;
            }
            case "all_to_all": {
                Tensor in = alloc(dt, piece * n);
                // not in place: allToAllSingle(t, t) is not supported (its result is wrong, no error: see the
                // report of issue 38), so both places run the call with two tensors
                Tensor out = alloc(dt, piece * n);
                run = Mono.defer(() -> g.allToAllSingle(out, in, new long[0], new long[0], options));
                fills.add(() -> fill(in, i -> moved(rank, i)));
                // block j of the output is block `rank` of rank j's input
                check = () -> wrong(out, 0, i -> moved((int) (i / piece), rank * piece + i % piece), dt);
                break;
            }
            case "gather": {
                List<Tensor> outs = new ArrayList<>();
                if (rank == root) {
                    for (int r = 0; r < n; r++) {
                        outs.add(alloc(dt, piece));
                    }
                }
                Tensor in = inPlace && rank == root ? outs.get(root) : alloc(dt, piece);
                run = Mono.defer(() -> g.gather(outs, in, root, options));
                fills.add(() -> fill(in, i -> moved(rank, i)));
                check = () -> {
                    long w = 0;
                    for (int r = 0; r < outs.size(); r++) {
                        int from = r;
                        w += wrong(outs.get(r), 0, i -> moved(from, i), dt);
                    }
                    return w;
                };
                break;
            }
            case "scatter": {
                List<Tensor> ins = new ArrayList<>();
                if (rank == root) {
                    for (int r = 0; r < n; r++) {
                        Tensor t = alloc(dt, piece);
                        int to = r;
                        ins.add(t);
                        fills.add(() -> fill(t, i -> moved(to, i)));
                    }
                }
                Tensor out = inPlace && rank == root ? ins.get(root) : alloc(dt, piece);
                run = Mono.defer(() -> g.scatter(out, ins, root, options));
                check = () -> wrong(out, 0, i -> moved(rank, i), dt);
                break;
            }
            default:
                throw new IllegalArgumentException("unknown collective " + op);
        }
        this.fill = () -> fills.forEach(Runnable::run);
        this.verify = check;
        this.call = run;
        Mono<?> timedCall = Mono.defer(() -> {
            long t0 = System.nanoTime();
            return call.doOnSuccess(x -> callNanos += System.nanoTime() - t0);
        });
        this.run = blocking == 1 ? call.then(g.barrier()) : blocking == 3 ? timedCall.then(g.barrier()) : call;
    }

    /**
     * {@code op} on {@code count} elements in all ({@code count / world} a rank for the ops that
     * split), in place or not, with nccl-tests' {@code -z} {@code blocking} mode.
     */
    static OpBench create(String op, ProcessGroup g, DType dt, long count, ReduceOp redop, int root, CollectiveOptions options,
                          boolean inPlace, int blocking) {
        return new OpBench(op, g, dt, count, redop, root, options, inPlace, blocking);
    }

    /** The collective, once, with {@code -z}'s barrier (subscribe again to run it again). */
    Mono<?> run() {
        return run;
    }

    /** Nanoseconds the calls themselves took since the last time this was called ({@code -z 3}: the barriers left out). */
    long takeCallNanos() {
        long t = callNanos;
        callNanos = 0;
        return t;
    }

    /**
     * Fills the inputs with known values, runs the collective once and returns how many elements of
     * this rank's result are wrong (waits: the benchmark's own thread, never an event loop).
     */
    long check() {
        fill.run();
        call.block();
        return verify.getAsLong();
    }

    @Override
    public void close() {
        owned.forEach(Tensor::release);
    }

    private Tensor alloc(DType dt, long count) {
        Tensor t = Tensor.zeros(dt, count);
        owned.add(t);
        return t;
    }

    /** The value rank {@code r} holds at element {@code i} for a data-moving collective: exact in every dtype. */
    static double moved(int r, long i) {
        return (r * 3L + i) % 11;
    }

    /** The value rank {@code r} holds at element {@code i} for a reduction: 1 or 2, so sums and products stay exact. */
    static double reduced(int r, long i) {
        return 1 + ((r + i) & 1);
    }

    /** What a reduction of {@link #reduced} over {@code n} ranks gives at element {@code i} in {@code dt}. */
    static double expectedReduction(ReduceOp op, int n, long i, DType dt) {
        long twos = 0;
        for (int r = 0; r < n; r++) {
            twos += (r + i) & 1;
        }
        switch (op.kind()) {
            case SUM: return n + twos;
            case AVG: return dt.isFloatingPoint() ? (n + twos) / (double) n : (n + twos) / n;
            case PRODUCT: return Math.pow(2, twos);
            case MIN: return twos == n ? 2 : 1;
            case MAX: return twos > 0 ? 2 : 1;
            default: throw new IllegalArgumentException("no check for reduction " + op);
        }
    }

    private static void fill(Tensor t, java.util.function.LongToDoubleFunction value) {
        long n = t.numel();
        for (long i = 0; i < n; i++) {
            t.setDouble(i, value.applyAsDouble(i));
        }
    }

    /** Elements of {@code t} from {@code from} on that differ from {@code expected} beyond {@code dt}'s rounding. */
    static long wrong(Tensor t, long from, java.util.function.LongToDoubleFunction expected, DType dt) {
        double rel = tolerance(dt);
        long bad = 0;
        long n = t.numel();
        for (long i = from; i < n; i++) {
            double want = expected.applyAsDouble(i);
            double got = t.getDouble(i);
            if (!(Math.abs(got - want) <= rel * Math.abs(want) + (rel == 0 ? 0 : 1e-12))) {
                bad++;
            }
        }
        return bad;
    }

    /** Relative error a value may carry in {@code dt}: none for integers, the rounding of an average otherwise. */
    static double tolerance(DType dt) {
        switch (dt) {
            case FLOAT16:
            case BFLOAT16:
                return 1e-2;
            case FLOAT32:
                return 1e-6;
            case FLOAT64:
                return 1e-12;
            default:
                return 0;
        }
    }
}
