package io.reactivecollectives.transport.launch;

import io.reactivecollectives.core.ReduceOp;
import io.reactivecollectives.core.Tensor;
import io.reactivecollectives.transport.GroupOptions;
import io.reactivecollectives.transport.MeshProcessGroup;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Map;

/**
 * One rank started by torchrun ({@link TorchrunTest}): joins through {@link EnvRendezvous} (torch's
 * agent store), all-reduces {@code rank + 1} and prints {@code rank R sum S launcher L store C}.
 */
public final class TorchrunRankMain {

    private TorchrunRankMain() {
    }

    public static void main(String[] args) {
        Map<String, String> env = System.getenv();
        Duration t = Duration.ofSeconds(30);
        GroupOptions options = GroupOptions.defaults().withHost("127.0.0.1").withConnectTimeout(t);
        String line = Mono.usingWhen(EnvRendezvous.connect(env, t),
                rdv -> Mono.usingWhen(MeshProcessGroup.connect(rdv.store(), rdv.rank(), rdv.worldSize(), options),
                        g -> g.allReduce(Tensor.fromLongs(new long[] {rdv.rank() + 1}, 1), ReduceOp.SUM)
                                .map(sum -> "rank " + rdv.rank() + " sum " + sum.toLongArray()[0] + " launcher "
                                        + rdv.launcher() + " store " + rdv.store().getClass().getSimpleName()
                                        + " embedded " + rdv.embeddedServer().isPresent())
                                .flatMap(s -> g.barrier().thenReturn(s)),
                        g -> Mono.fromRunnable(g::close)),
                rdv -> Mono.fromRunnable(rdv::close)).block(Duration.ofSeconds(50));
        System.out.println(line);
        System.exit(0);
    }
}
