package io.reactivecollectives.transport;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Eight local ranks in this JVM (run with a shared-memory budget smaller than their 56 rings): an
 * all-to-all, which every pair carries, and a 1 MiB all-reduce, each checked element by element;
 * prints whether all was right and how many pairs went through shared memory and how many through
 * Unix sockets.
 */
public final class SharedMemoryBudgetMain {

    private static final int N = 8;
    private static final int ELEMENTS = 1024;

    public static void main(String[] args) {
        LocalCluster cluster = LocalCluster.start(N, GroupOptions.defaults().withGroupId("shm-budget"))
                .block(Duration.ofSeconds(60));
        List<Tensor> all = new ArrayList<>();
        try {
            List<List<Tensor>> ins = new ArrayList<>();
            List<List<Tensor>> outs = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                List<Tensor> in = new ArrayList<>();
                List<Tensor> out = new ArrayList<>();
                for (int p = 0; p < N; p++) {
                    float[] v = new float[ELEMENTS];
                    java.util.Arrays.fill(v, r * 100 + p);
                    in.add(Tensor.fromFloats(v, ELEMENTS));
                    out.add(Tensor.fromFloats(new float[ELEMENTS], ELEMENTS));
                }
                ins.add(in);
                outs.add(out);
                all.addAll(in);
                all.addAll(out);
            }
            cluster.run(g -> g.allToAll(outs.get(g.rank()), ins.get(g.rank()))).block(Duration.ofSeconds(60));
            boolean right = true;
            for (int r = 0; r < N; r++) {
                for (int p = 0; p < N; p++) {
                    for (float x : outs.get(r).get(p).toFloatArray()) {
                        right &= x == p * 100 + r;
                    }
                }
            }
            Tensor[] big = new Tensor[N];
            for (int r = 0; r < N; r++) {
                float[] v = new float[1 << 18];
                java.util.Arrays.fill(v, r + 1);
                big[r] = Tensor.fromFloats(v, v.length);
                all.add(big[r]);
            }
            cluster.run(g -> g.allReduce(big[g.rank()], ReduceOp.SUM)).block(Duration.ofSeconds(60));
            for (Tensor t : big) {
                for (float x : t.toFloatArray()) {
                    right &= x == N * (N + 1) / 2f;
                }
            }
            int shm = 0;
            int unix = 0;
            for (int r = 0; r < N; r++) {
                for (int p = 0; p < N; p++) {
                    String via = p == r ? "" : cluster.groups().get(r).transportTo(p);
                    shm += via.startsWith("shm") ? 1 : 0;
                    unix += via.startsWith("unix") ? 1 : 0;
                }
            }
            System.out.println("RESULT right " + right + " shm " + shm + " unix " + unix);
        } finally {
            all.forEach(Tensor::release);
            cluster.close();
        }
    }
}
