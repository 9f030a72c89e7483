package io.reactivecollectives.perf;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.LocalCluster;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The scale harness's check of every collective on a {@link LocalCluster}, element by element:
 * broadcast, reduce, all-gather, reduce-scatter, gather, scatter, barrier, send/recv (each rank to
 * the next), and, when asked, all-to-all (which connects every pair). Values depend on the sending
 * rank and the element, so a piece from the wrong rank or place is caught. Names the first failure.
 */
final class ScaleChecks {

    private static final Duration TIMEOUT = Duration.ofSeconds(300);
    private static final int LEN = 3;

    private ScaleChecks() {
    }

    /** The ops checked, for the row's header. */
    static String names(boolean allToAll) {
        return "broadcast, reduce, all_gather, reduce_scatter, gather, scatter, barrier, send/recv" + (allToAll ? ", all_to_all" : "");
    }

    /** Null when every collective was right, else what was wrong first. */
    static String check(LocalCluster c, boolean allToAll) {
        return check(new ArrayList<ProcessGroup>(c.groups()), c.size(), allToAll);
    }

    /**
     * {@link #check(LocalCluster, boolean)} for {@code groups}, some or all of the ranks of a group of
     * {@code n} (the other ranks, in other processes, run the same checks at the same time).
     */
    static String check(List<ProcessGroup> c, int n, boolean allToAll) {
        int root = n / 3;
        String bad = first(c, g -> {
            Tensor t = of(g.rank() == root ? value(root, 0) : -1);
            return g.broadcast(t, root).map(r -> equalsAll(r, value(root, 0), "broadcast", g.rank())).doFinally(x -> t.release());
        });
        bad = bad != null ? bad : first(c, g -> {
            Tensor t = of(value(g.rank(), 0));
            return g.reduce(t, root, ReduceOp.MAX, CollectiveOptions.DEFAULT)
                    .map(r -> g.rank() != root ? "" : equalsAll(r, value(n - 1, 0), "reduce", g.rank()))
                    .doFinally(x -> t.release());
        });
        bad = bad != null ? bad : first(c, g -> {
            Tensor t = of(value(g.rank(), 1));
            List<Tensor> outs = zeros(n);
            return g.allGather(outs, t).map(l -> slots(l, q -> value(q, 1), "all_gather", g.rank()))
                    .doFinally(x -> release(t, outs));
        });
        bad = bad != null ? bad : first(c, g -> {
            List<Tensor> ins = new ArrayList<>();
            for (int q = 0; q < n; q++) {
                ins.add(of((g.rank() + 1) * (q % 7 + 1)));   // integer sums below 2^24: exact in any order
            }
            Tensor out = of(0);
            float sum = (g.rank() % 7 + 1) * (n * (n + 1) / 2f);
            return g.reduceScatter(out, ins, ReduceOp.SUM).map(r -> equalsAll(r, sum, "reduce_scatter", g.rank()))
                    .doFinally(x -> release(out, ins));
        });
        bad = bad != null ? bad : first(c, g -> {
            Tensor t = of(value(g.rank(), 2));
            List<Tensor> outs = g.rank() == root ? zeros(n) : List.of();
            return g.gather(outs, t, root).map(l -> g.rank() != root ? "" : slots(l, q -> value(q, 2), "gather", g.rank()))
                    .doFinally(x -> release(t, outs));
        });
        bad = bad != null ? bad : first(c, g -> {
            List<Tensor> ins = new ArrayList<>();
            for (int q = 0; g.rank() == root && q < n; q++) {
                ins.add(of(value(q, 3)));
            }
            Tensor out = of(-1);
            return g.scatter(out, ins, root).map(r -> equalsAll(r, value(g.rank(), 3), "scatter", g.rank()))
                    .doFinally(x -> release(out, ins));
        });
        bad = bad != null ? bad : first(c, g -> g.barrier().thenReturn(""));
        bad = bad != null ? bad : first(c, g -> {
            Tensor send = of(value(g.rank(), 4));
            Tensor recv = of(-1);
            int next = (g.rank() + 1) % n;
            int prev = (g.rank() + n - 1) % n;
            return Mono.when(g.send(send, next, 7), g.recv(recv, prev, 7))
                    .then(Mono.fromCallable(() -> equalsAll(recv, value(prev, 4), "send/recv", g.rank())))
                    .doFinally(x -> release(send, List.of(recv)));
        });
        if (bad == null && allToAll) {
            bad = first(c, g -> {
                List<Tensor> ins = new ArrayList<>();
                for (int q = 0; q < n; q++) {
                    ins.add(of(value(g.rank(), 5 + q)));
                }
                List<Tensor> outs = zeros(n);
                return g.allToAll(outs, ins).map(l -> slots(l, q -> value(q, 5 + g.rank()), "all_to_all", g.rank()))
                        .doFinally(x -> {
                            ins.forEach(Tensor::release);
                            outs.forEach(Tensor::release);
                        });
            });
        }
        return bad;
    }

    /**
     * Each rank r of {@code groups} (some or all of a group of {@code n}) all-reduces {@code count}
     * floats, {@code (r + 1) * (i % 7 + 1)} at element i; true when every result is
     * {@code (i % 7 + 1) * n (n + 1) / 2}, exact in floats.
     */
    static boolean sumIsRight(List<ProcessGroup> groups, int n, int count) {
        List<Boolean> ok = reactor.core.publisher.Flux.fromIterable(groups).flatMap(g -> {
            float[] v = new float[count];
            for (int i = 0; i < count; i++) {
                v[i] = (g.rank() + 1) * (i % 7 + 1);
            }
            return g.allReduce(Tensor.fromFloats(v, count), ReduceOp.SUM).map(r -> {
                float[] out = r.toFloatArray();
                r.release();
                for (int i = 0; i < count; i++) {
                    if (out[i] != (i % 7 + 1) * n * (n + 1) / 2f) {
                        return false;
                    }
                }
                return true;
            });
        }, Math.max(1, groups.size())).collectList().block(TIMEOUT);
        return ok.size() == groups.size() && !ok.contains(false);
    }

    /** The median wall time, ms, of {@code iters} all-reduces of {@code count} floats on every rank of {@code groups} at once. */
    static double medianMs(List<ProcessGroup> groups, int count, int warmup, int iters) {
        List<Tensor> ts = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            ts.add(Tensor.zeros(DType.FLOAT32, count));
        }
        try {
            double[] times = new double[iters];
            for (int k = -warmup; k < iters; k++) {
                long t = System.nanoTime();
                reactor.core.publisher.Flux.range(0, groups.size())
                        .flatMap(i -> groups.get(i).allReduce(ts.get(i), ReduceOp.SUM), Math.max(1, groups.size()))
                        .then().block(TIMEOUT);
                if (k >= 0) {
                    times[k] = (System.nanoTime() - t) / 1e6;
                }
            }
            Arrays.sort(times);
            return times[iters / 2];
        } finally {
            ts.forEach(Tensor::release);
        }
    }

    /** Every store operation {@code reg}'s {@code MeteredStore} counted so far. */
    static long storeOps(io.micrometer.core.instrument.simple.SimpleMeterRegistry reg) {
        return reg.find(io.reactivecollectives.core.rendezvous.MeteredStore.TIMER).timers().stream()
                .mapToLong(io.micrometer.core.instrument.Timer::count).sum();
    }

    /** The open file descriptors of this process ({@code /proc/self/fd}), -1 where that cannot be read. */
    static int openFds() {
        String[] names = new java.io.File("/proc/self/fd").list();
        return names == null ? -1 : names.length;
    }

    /** Sender {@code rank}'s value for place {@code k}: exact in floats for ranks below 2^14. */
    private static float value(int rank, int k) {
        return rank * 1000f + k % 997;
    }

    private static Tensor of(float v) {
        float[] a = new float[LEN];
        Arrays.fill(a, v);
        return Tensor.fromFloats(a, LEN);
    }

    private static List<Tensor> zeros(int n) {
        List<Tensor> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(Tensor.zeros(DType.FLOAT32, LEN));
        }
        return l;
    }

    private static void release(Tensor t, List<Tensor> l) {
        t.release();
        l.forEach(Tensor::release);
    }

    private static String equalsAll(Tensor t, float want, String op, int rank) {
        for (float v : t.toFloatArray()) {
            if (v != want) {
                return op + " at rank " + rank + ": got " + v + ", want " + want;
            }
        }
        return "";
    }

    private static String slots(List<Tensor> l, java.util.function.IntFunction<Float> want, String op, int rank) {
        for (int q = 0; q < l.size(); q++) {
            String bad = equalsAll(l.get(q), want.apply(q), op + " slot " + q, rank);
            if (!bad.isEmpty()) {
                return bad;
            }
        }
        return "";
    }

    /** Runs {@code body} on every rank of {@code c}; the first rank's complaint, or null when none complained. */
    private static String first(List<ProcessGroup> c, Function<ProcessGroup, Mono<String>> body) {
        List<String> said = reactor.core.publisher.Flux.fromIterable(c).flatMap(body, Math.max(1, c.size()))
                .collectList().block(TIMEOUT);
        for (String s : said) {
            if (s != null && !s.isEmpty()) {
                return s;
            }
        }
        return said.size() == c.size() ? null : "only " + said.size() + " of " + c.size() + " ranks answered";
    }
}
