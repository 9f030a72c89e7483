package io.reactivecollectives.samples.examples;

import io.reactivecollectives.core.Codec;
import io.reactivecollectives.core.ProcessGroup;
import reactor.core.publisher.Mono;

/**
 * Broadcast of a configuration: rank 0 owns a configuration string and every rank emits it, as
 * one object collective ({@link ProcessGroup#broadcastObject}: the length travels with the bytes,
 * so a small object takes one round trip; JSON through Jackson).
 *
 * <pre>bin/collectives-run --nproc-per-node 3 -- io.reactivecollectives.samples.examples.BroadcastConfig lr=0.1,epochs=3</pre>
 */
public final class BroadcastConfig {

    private static final Codec<String> JSON = Codec.json(String.class);

    private BroadcastConfig() {
    }

    /** Emits rank 0's {@code config} on every rank ({@code config} is ignored elsewhere). */
    public static Mono<String> run(ProcessGroup group, String config) {
        return group.broadcastObject(config, 0, JSON);
    }

    public static void main(String[] args) {
        String config = args.length > 0 ? args[0] : "lr=0.05,momentum=0.9,batch=32";
        Ranks.run(group -> run(group, config).doOnNext(c -> System.out.println("config: " + c)));
    }
}
