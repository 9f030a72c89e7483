package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.CollectiveOptions;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongToDoubleFunction;

/**
 * Runs every collective once small (7 elements: the latency algorithms) and once large (70,000
 * float64 elements, 560 KB: the pipelined ones) and checks every element of every rank's result
 * against what it must be; for runs across hosts ({@code perf/scripts/netns_hosts.sh}). Each rank
 * prints {@code CHECK rank 2/4 host h1: 19 collectives OK}, or fails naming the
 * collective, the element and both values (exit status 1).
 *
 * <pre>bin/collectives-run --nproc-per-node 4 -- io.reactivecollectives.samples.examples.CollectivesCheck</pre>
 */
public final class CollectivesCheck {

    private static final long[] SIZES = {7, 70_000};

    private CollectivesCheck() {
    }

    /** Element {@code i} of rank {@code r}'s input: distinct per rank and index, sums exact in float64. */
    static double v(int r, long i) {
        return r * 1000.0 + (i % 997);
    }

    private static Tensor values(int r, long n, long offset) {
        double[] a = new double[Math.toIntExact(n)];
        for (int i = 0; i < a.length; i++) {
            a[i] = v(r, offset + i);
        }
        return Tensor.fromDoubles(a);
    }

    private static Tensor zeros(long n) {
        return Tensor.zeros(io.reactivecollectives.core.DType.FLOAT64, n);
    }

    private static void check(String what, ProcessGroup g, Tensor t, LongToDoubleFunction expected) {
        for (long i = 0; i < t.numel(); i++) {
            double want = expected.applyAsDouble(i);
            double got = t.getDouble(i);
            if (got != want) {
                throw new IllegalStateException(what + " on rank " + g.rank() + ": element " + i + " is " + got
                        + ", expected " + want);
            }
        }
    }

    /** Runs {@code body} on fresh tensors and releases them whatever happens. */
    private static Mono<String> with(List<Tensor> tensors, Function<List<Tensor>, Mono<?>> body, String name) {
        return Mono.using(() -> tensors, ts -> body.apply(ts).then(Mono.just(name)), ts -> ts.forEach(Tensor::release));
    }

    /** Every collective at both sizes; emits how many were checked. */
    public static Mono<Integer> run(ProcessGroup g) {
        int w = g.size();
        int r = g.rank();
        List<Mono<String>> checks = new ArrayList<>();
        for (long n : SIZES) {
            String sz = "[" + n + "]";
            checks.add(Mono.defer(() -> with(List.of(values(r, n, 0)), ts -> g.allReduce(ts.get(0), ReduceOp.SUM)
                    .doOnNext(t -> check("allReduce" + sz, g, t, i -> {
                        double s = 0;
                        for (int q = 0; q < w; q++) {
                            s += v(q, i);
                        }
                        return s;
                    })), "allReduce")));
            int root = w - 1;
            checks.add(Mono.defer(() -> with(List.of(values(r, n, 0)), ts -> g.broadcast(ts.get(0), root)
                    .doOnNext(t -> check("broadcast" + sz, g, t, i -> v(root, i))), "broadcast")));
            checks.add(Mono.defer(() -> {
                List<Tensor> ts = new ArrayList<>();
                ts.add(values(r, n, 0));
                for (int q = 0; q < w; q++) {
                    ts.add(zeros(n));
                }
                return with(ts, l -> g.allGather(l.subList(1, l.size()), l.get(0)).doOnNext(outs -> {
                    for (int q = 0; q < w; q++) {
                        int src = q;
                        check("allGather" + sz + " from rank " + q, g, outs.get(q), i -> v(src, i));
                    }
                }), "allGather");
            }));
            checks.add(Mono.defer(() -> with(List.of(values(r, n * w, 0), zeros(n)),
                    ts -> g.reduceScatterTensor(ts.get(1), ts.get(0), ReduceOp.SUM)
                            .doOnNext(t -> check("reduceScatter" + sz, g, t, i -> {
                                double s = 0;
                                for (int q = 0; q < w; q++) {
                                    s += v(q, r * n + i);
                                }
                                return s;
                            })), "reduceScatter")));
            checks.add(Mono.defer(() -> with(List.of(values(r, n * w, 0), zeros(n * w)),
                    ts -> g.allToAllSingle(ts.get(1), ts.get(0), new long[0], new long[0])
                            .doOnNext(t -> check("allToAll" + sz, g, t, k -> v((int) (k / n), r * n + k % n))),
                    "allToAll")));
            checks.add(Mono.defer(() -> {
                List<Tensor> ts = new ArrayList<>();
                ts.add(values(r, n, 0));
                for (int q = 0; q < (r == 0 ? w : 0); q++) {
                    ts.add(zeros(n));
                }
                return with(ts, l -> g.gather(l.subList(1, l.size()), l.get(0), 0).doOnNext(outs -> {
                    for (int q = 0; q < outs.size(); q++) {
                        int src = q;
                        check("gather" + sz + " from rank " + q, g, outs.get(q), i -> v(src, i));
                    }
                }), "gather");
            }));
            int from = 1 % w;
            checks.add(Mono.defer(() -> {
                List<Tensor> ts = new ArrayList<>();
                ts.add(zeros(n));
                for (int q = 0; q < (r == from ? w : 0); q++) {
                    ts.add(values(r, n, q * n));
                }
                return with(ts, l -> g.scatter(l.get(0), l.subList(1, l.size()), from)
                        .doOnNext(t -> check("scatter" + sz, g, t, i -> v(from, r * n + i))), "scatter");
            }));
            checks.add(Mono.defer(() -> with(List.of(values(r, n, 0)),
                    ts -> g.reduce(ts.get(0), 0, ReduceOp.MAX, CollectiveOptions.DEFAULT)
                            .doOnNext(t -> {
                                if (r == 0) {
                                    check("reduce" + sz, g, t, i -> v(w - 1, i));
                                }
                            }), "reduce")));
            checks.add(Mono.defer(() -> with(List.of(values(r, n, 0), zeros(n)),
                    ts -> Mono.when(g.send(ts.get(0), (r + 1) % w, 5), g.recv(ts.get(1), (r - 1 + w) % w, 5))
                            .then(Mono.fromRunnable(() -> check("send/recv" + sz, g, ts.get(1), i -> v((r - 1 + w) % w, i)))),
                    "send/recv")));
        }
        checks.add(g.barrier().thenReturn("barrier"));
        return Flux.fromIterable(checks).concatMap(m -> m).count().map(Long::intValue);
    }

    public static void main(String[] args) {
        String host = System.getenv().getOrDefault("HOSTNAME", "");
        Ranks.run(g -> run(g).doOnNext(n -> System.out.println("CHECK rank " + g.rank() + "/" + g.size()
                + " host " + hostName(host) + ": " + n + " collectives OK"
                + (g instanceof io.reactivecollectives.transport.MeshProcessGroup t ? " (" + t.topology() + ")" : ""))));
    }

    private static String hostName(String fallback) {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return fallback;
        }
    }
}
