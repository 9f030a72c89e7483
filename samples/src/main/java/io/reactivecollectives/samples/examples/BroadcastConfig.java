package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.DType;
import io.reactivecollectives.core.ProcessGroup;
import io.reactivecollectives.core.Tensor;
import reactor.core.publisher.Mono;

import java.nio.charset.StandardCharsets;

/**
 * Broadcast of a configuration: rank 0 owns a configuration string; the group first broadcasts its
 * length (an INT64 tensor), then its bytes (a UINT8 tensor sized from that length), and every rank
 * emits the same string. Two collectives chained with {@code flatMap}, each rank's buffers released
 * whatever happens.
 *
 * <pre>bin/collectives-run --nproc-per-node 3 -- io.reactivecollectives.samples.examples.BroadcastConfig lr=0.1,epochs=3</pre>
 */
public final class BroadcastConfig {

    private BroadcastConfig() {
    }

    /** Emits rank 0's {@code config} on every rank ({@code config} is ignored elsewhere). */
    public static Mono<String> run(ProcessGroup group, String config) {
        byte[] mine = group.rank() == 0 ? config.getBytes(StandardCharsets.UTF_8) : new byte[0];
        return Mono.using(
                () -> Tensor.fromLongs(new long[] {mine.length}),
                len -> group.broadcast(len, 0).map(t -> t.getLong(0)),
                Tensor::release)
                .flatMap(n -> Mono.using(
                        () -> group.rank() == 0 ? Tensor.fromBytes(DType.UINT8, mine) : Tensor.zeros(DType.UINT8, n),
                        bytes -> group.broadcast(bytes, 0)
                                .map(t -> new String(t.toByteArray(), StandardCharsets.UTF_8)),
                        Tensor::release));
    }

    public static void main(String[] args) {
        String config = args.length > 0 ? args[0] : "lr=0.05,momentum=0.9,batch=32";
        Ranks.run(group -> run(group, config).doOnNext(c -> System.out.println("config: " + c)));
    }
}
