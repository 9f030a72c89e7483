package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import io.reactivecollectives.transport.launch.EnvRendezvous;
import io.reactivecollectives.transport.launch.Rendezvous;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A host's link goes down in the middle of a job: every rank all-reduces one number in a loop;
 * after 40 rounds the last rank takes its own host's link down ({@code ip link set eth0 down}: run
 * it only inside {@code perf/scripts/netns_hosts.sh}'s namespaces) and prints when the link was down
 * ({@code LINK DOWN rank 2 at <ms since the epoch>}, once {@code ip} has returned). The others print
 * how long after their last good round they learnt of it, the wall-clock time they learnt it (the
 * hosts share one clock), and why ({@code DETECTED rank 0 after 2731 ms (at <ms since the epoch>):
 * ... peer 2 unresponsive ...}). The last good round comes before the victim starts {@code ip}, so
 * "after" also counts how long the victim took to start it (its heartbeats flow meanwhile); the
 * time from the link going down to the detection is the difference of the two wall-clock times.
 * They then shrink to the ranks they can still reach and all-reduce there
 * ({@code SHRUNK rank 0: 2 ranks, sum 3.0 OK}). The rank that lost its link prints what it saw and
 * exits without shrinking (it could not reach the store; the split-brain rules are tested
 * elsewhere).
 *
 * <pre>perf/scripts/netns_hosts.sh --hosts 3 --keep-going -- bin/collectives-run --nproc-per-node 1 \
 *   --nnodes {hosts} --node-rank {host} --master-addr h0 --master-port 29500 -- \
 *   io.reactivecollectives.samples.examples.LinkDownCheck</pre>
 */
public final class LinkDownCheck {

    private static final int ROUNDS_BEFORE = 40;

    private LinkDownCheck() {
    }

    public static void main(String[] args) throws Exception {
        try (Rendezvous rdv = EnvRendezvous.connect(System.getenv(), Duration.ofSeconds(20)).block()) {
            GroupOptions options = GroupOptions.defaults().withHost(EnvRendezvous.groupHost(System.getenv()))
                    .withTimeout(Duration.ofSeconds(30)).withConnectTimeout(Duration.ofSeconds(60));
            MeshProcessGroup group = MeshProcessGroup.connect(rdv.store(), rdv.rank(), rdv.worldSize(), options).block();
            int rank = group.rank();
            boolean victim = rank == group.size() - 1;
            Tensor t = Tensor.zeros(DType.FLOAT32, 1);
            long lastOk = System.nanoTime();
            try {
                for (int round = 0; ; round++) {
                    if (victim && round == ROUNDS_BEFORE) {
                        Process p = new ProcessBuilder("ip", "link", "set", "eth0", "down").inheritIO().start();
                        p.waitFor(10, TimeUnit.SECONDS);
                        System.out.println("LINK DOWN rank " + rank + " at " + System.currentTimeMillis());
                    }
                    t.fill(1);
                    group.allReduce(t, ReduceOp.SUM).block();
                    lastOk = System.nanoTime();
                    Thread.sleep(20);
                }
            } catch (RuntimeException e) {
                long ms = (System.nanoTime() - lastOk) / 1_000_000;
                System.out.println("DETECTED rank " + rank + " after " + ms + " ms (at " + System.currentTimeMillis() + "): "
                        + e.getMessage());
            } finally {
                t.release();
            }
            if (victim) {
                group.close();
                return;
            }
            ProcessGroup survivors = group.shrink().block(Duration.ofSeconds(30));
            Tensor one = Tensor.zeros(DType.FLOAT32, 1).fill(1);
            try {
                double sum = survivors.allReduce(one, ReduceOp.SUM).block(Duration.ofSeconds(30)).getDouble(0);
                System.out.println("SHRUNK rank " + rank + ": " + survivors.size() + " ranks, sum " + sum
                        + (sum == survivors.size() ? " OK" : " WRONG"));
                survivors.barrier().block(Duration.ofSeconds(30));
            } finally {
                one.release();
                survivors.close();
                group.close();
            }
        }
    }
}
